// How values of the protobuf JSON mapping are shown: enums without their prefix, int64 strings
// as numbers, timestamps in the viewer's local time.

export function enumName(value, prefix) {
  if (!value) return 'unspecified';
  return String(value).replace(prefix, '').toLowerCase().replaceAll('_', ' ');
}

export function int(value) {
  return Number(value || 0);
}

export function when(timestamp) {
  if (!timestamp) return '';
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return String(timestamp);
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} `
    + `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function shortId(id) {
  const text = String(id || '');
  return text.length > 22 ? `${text.slice(0, 16)}…${text.slice(-4)}` : text;
}

export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** Splits a comma-separated filter field into its non-empty values. */
export function listField(text) {
  return String(text || '').split(',').map((part) => part.trim()).filter(Boolean);
}

export const STATUS = {
  ACTIVE: 'ENTRY_STATUS_ACTIVE',
  INACTIVE: 'ENTRY_STATUS_INACTIVE',
  MERGED: 'ENTRY_STATUS_MERGED',
};
