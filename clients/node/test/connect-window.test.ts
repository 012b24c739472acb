// The connect window without a server: which failures count as "reached no server", and that a
// deadline ending a try after the server was found away gives the same Unavailable as the
// window itself (a retry timer that fires late on a loaded machine must not change the answer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { status } from '@grpc/grpc-js';

import { DeadlineExceeded, Unavailable } from '../src';
import { ConnectWindow } from '../src/connect';
import { errorFromStatus } from '../src/errors';

const ENDPOINT = '127.0.0.1:1';
const refused = errorFromStatus(
  status.UNAVAILABLE,
  'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1',
  undefined,
);
// grpc-js's details for a deadline that ran out before the call had a connection, and after.
const unsent = errorFromStatus(
  status.DEADLINE_EXCEEDED,
  'Deadline exceeded after 0.000s,Waiting for LB pick',
  undefined,
);
const unresolved = errorFromStatus(
  status.DEADLINE_EXCEEDED,
  'Deadline exceeded after 0.003s,waiting for name resolution',
  undefined,
);
const sent = errorFromStatus(
  status.DEADLINE_EXCEEDED,
  'Deadline exceeded after 0.301s,LB pick: 0.001s,remote_addr=127.0.0.1:1',
  undefined,
);

function window(): ConnectWindow {
  return new ConnectWindow({ endpoint: ENDPOINT, connectTimeoutMs: 1_000 });
}

function isRefusal(error: unknown): boolean {
  assert.ok(error instanceof Unavailable, String(error));
  assert.equal(error.details, `cannot reach ${ENDPOINT}: connection refused`);
  return true;
}

describe('the connect window', () => {
  it('pauses a call that reached no server, within the window', () => {
    const wait = window().pause(refused, 50);
    assert.equal(wait, 50);
  });

  it('answers a deadline that ran out unsent, after a refusal, with the refusal', () => {
    for (const expired of [unsent, unresolved]) {
      const open = window();
      open.pause(refused, 50);
      assert.throws(() => open.pause(expired, 50), isRefusal);
    }
  });

  it('leaves a deadline alone when the window saw no refusal, or the call was sent', () => {
    assert.ok(unsent instanceof DeadlineExceeded);
    assert.equal(window().pause(unsent, 50), undefined, 'no cause is known yet');
    const open = window();
    open.pause(refused, 50);
    assert.equal(open.pause(sent, 50), undefined, 'a server may have seen it');
  });

  it('ends with the refusal once no time is left before the deadline', () => {
    const open = new ConnectWindow(
      { endpoint: ENDPOINT, connectTimeoutMs: 1_000 },
      Date.now() + 10,
    );
    assert.throws(() => open.pause(refused, 50), isRefusal);
  });
});
