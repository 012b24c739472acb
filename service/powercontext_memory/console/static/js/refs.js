// Citation text as the command line spells it (clients/python/powercontext_client/cli/refs.py):
// MEMORY@REVISION/ENTRY_ID/VERSION_ID, e.g. mem_art_…@3/mem_ent_…/mem_ver_….

const ID = /^[\x21-\x7e]{1,128}$/; // ids are visible ASCII, at most 128 characters

export class CitationSyntaxError extends Error {}

/** A Citation message from its text; CitationSyntaxError says what is wrong. */
export function parseCitation(text) {
  const trimmed = String(text).trim();
  const parts = trimmed.split('/');
  if (parts.length !== 3 || !parts[0].includes('@') || !parts.every(Boolean)) {
    throw new CitationSyntaxError(`not a citation: ${JSON.stringify(trimmed)} (MEMORY@REVISION/ENTRY_ID/VERSION_ID)`);
  }
  const [memory, entryId, entryVersionId] = parts;
  const at = memory.indexOf('@');
  const artifactId = memory.slice(0, at);
  const revision = memory.slice(at + 1);
  if (!artifactId) throw new CitationSyntaxError(`not a memory: ${JSON.stringify(memory)}`);
  if (!/^[0-9]+$/.test(revision) || Number(revision) < 1) {
    throw new CitationSyntaxError(`not a revision number: ${JSON.stringify(memory)}`);
  }
  for (const id of [artifactId, entryId, entryVersionId]) {
    if (!ID.test(id)) throw new CitationSyntaxError(`not an id: ${JSON.stringify(id)}`);
  }
  return { memoryRef: { artifactId, revision: revision.replace(/^0+/, '') }, entryId, entryVersionId };
}

export function formatCitation(citation) {
  const ref = citation.memoryRef || {};
  return `${ref.artifactId}@${ref.revision || 0}/${citation.entryId}/${citation.entryVersionId}`;
}

export function citation(artifactId, revision, entryId, entryVersionId) {
  return { memoryRef: { artifactId, revision: String(revision) }, entryId, entryVersionId };
}

export function formatSource(ref) {
  return `${ref.sourceId}:${ref.contentHash}`;
}

/** Splits pasted text into citation lines (blank lines and surrounding spaces dropped). */
export function citationLines(text) {
  return String(text).split(/\s+/).map((line) => line.trim()).filter(Boolean);
}
