// validate_doc_update of _design/starintel_fence (version 3).
// Contract (fenced writes): the server itself rejects a write that could make a stale or lower-token revision of a
// fenced document current. What this function sees (CouchDB 3.4 and pouchdb-server 4.2, verified over HTTP):
//   interactive create    newDoc._rev undefined, oldDoc null (also for a re-create after a deletion or a purge)
//   interactive update    newDoc._rev === oldDoc._rev (the revision it replaces), oldDoc = that revision
//   replicated write      (_bulk_docs new_edits:false, PUT ?new_edits=false) newDoc._rev is the new revision itself
//                         and oldDoc is only the nearest stored ancestor on that revision's own path (null for a
//                         disjoint history), never the current winner
// Rules, in order (every refusal is 403 forbidden with a 'starintel_fence: ' reason):
//   1. a new fence must be an object with a lock_key_digest and a positive integer fencing_token <= 2^53 - 1
//   2. replicated writes are refused unless the user has the role starintel_fence_replicator (admins included):
//      they are checked against an ancestor, not the winner, so they could install a losing token as the winner
//   3. a fenced document is never deleted (_deleted): a deleted document has no stored fence for this function,
//      so a later create of the same id could carry any token. Fenced deletions are tombstones that keep the fence
//      (starintel_deleted: true), written like any update
//   4. a document without a stored fence accepts any first fence; a fenced one cannot drop it
//   5. the lock identity (lock_key_digest) of a fenced document never changes
//   6. the fencing_token never goes below the stored token (equal passes: one holder writes several times)
//   R. a recovery write (a new fence with a 'recovery' object, FencedDocumentRecovery) is an interactive update of a
//      fenced document by a user with the role starintel_fence_recovery (admins included only with the role); it
//      passes rules 1-4 and may then replace a forged fence's identity and lower its token (rules 5 and 6), which
//      is what it exists for. Without the role a fence carrying 'recovery' is refused
// Design documents are exempt (CouchDB restricts them to admins). _purge bypasses this function entirely: fenced
// readers compare against the durable marks in Redis (FencedCouchDbReader).
function (newDoc, oldDoc, userCtx, secObj) {
  var PREFIX = 'starintel_fence: ';
  var MAX_TOKEN = 9007199254740991;
  var REPLICATOR_ROLE = 'starintel_fence_replicator';
  var RECOVERY_ROLE = 'starintel_fence_recovery';
  if (newDoc._id && newDoc._id.indexOf('_design/') === 0) {
    return;
  }
  function fenceOf(doc) {
    if (!doc || doc.starintel_fence === undefined || doc.starintel_fence === null) {
      return null;
    }
    return doc.starintel_fence;
  }
  function tokenOf(fence, which) {
    var t = fence.fencing_token;
    if (typeof t !== 'number' || t !== Math.floor(t) || t < 1 || t > MAX_TOKEN) {
      throw({forbidden: PREFIX + which + ' fencing_token is not a positive integer below 2^53'});
    }
    return t;
  }
  function hasRole(role) {
    var roles = (userCtx && userCtx.roles) ? userCtx.roles : [];
    for (var i = 0; i < roles.length; i++) {
      if (roles[i] === role) {
        return true;
      }
    }
    return false;
  }
  var next = fenceOf(newDoc);
  var stored = fenceOf(oldDoc);
  if (next !== null) {
    if (typeof next !== 'object' || typeof next.lock_key_digest !== 'string' || next.lock_key_digest.length === 0) {
      throw({forbidden: PREFIX + 'malformed fence'});
    }
    tokenOf(next, 'new');
  }
  var replicated = newDoc._rev !== undefined && (!oldDoc || newDoc._rev !== oldDoc._rev);
  if (replicated && !hasRole(REPLICATOR_ROLE)) {
    throw({forbidden: PREFIX + 'replicated writes (new_edits=false) need the role ' + REPLICATOR_ROLE});
  }
  if (newDoc._deleted && (next !== null || stored !== null)) {
    throw({forbidden: PREFIX + 'a fenced document is not deleted: write a fenced tombstone (starintel_deleted)'});
  }
  if (stored === null) {
    if (next !== null && next.recovery !== undefined) {
      throw({forbidden: PREFIX + 'a recovery write replaces a fenced document'});
    }
    return;
  }
  if (next === null) {
    throw({forbidden: PREFIX + 'a fenced document cannot drop its fence'});
  }
  if (next.recovery !== undefined) {
    if (!hasRole(RECOVERY_ROLE)) {
      throw({forbidden: PREFIX + 'recovery writes need the role ' + RECOVERY_ROLE});
    }
    if (replicated || next.recovery === null || typeof next.recovery !== 'object'
        || typeof next.recovery.recovery_id !== 'string' || next.recovery.recovery_id.length === 0) {
      throw({forbidden: PREFIX + 'malformed recovery'});
    }
    return;
  }
  if (next.lock_key_digest !== stored.lock_key_digest) {
    throw({forbidden: PREFIX + 'lock identity differs from the stored fence'});
  }
  if (tokenOf(next, 'new') < tokenOf(stored, 'stored')) {
    throw({forbidden: PREFIX + 'fencing token below the stored token'});
  }
}
