// validate_doc_update of _design/starintel_fence (version 1).
// Contract (fenced writes): the server itself rejects a write whose starintel_fence.fencing_token is below the
// token already stored on the document, a write that drops the fence from a fenced document (including a deletion
// without a fence), and a write that moves a fenced document to another lock identity (tokens of different
// identities are not comparable). Tokens are JSON numbers below 2^53, so JS doubles compare them exactly.
// Design documents are exempt (CouchDB restricts them to admins).
function (newDoc, oldDoc, userCtx, secObj) {
  var PREFIX = 'starintel_fence: ';
  var MAX_TOKEN = 9007199254740991;
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
  var next = fenceOf(newDoc);
  var stored = fenceOf(oldDoc);
  if (next !== null) {
    if (typeof next !== 'object' || typeof next.lock_key_digest !== 'string' || next.lock_key_digest.length === 0) {
      throw({forbidden: PREFIX + 'malformed fence'});
    }
    tokenOf(next, 'new');
  }
  if (stored === null) {
    return;
  }
  if (next === null) {
    if (newDoc._deleted) {
      throw({forbidden: PREFIX + 'deleting a fenced document requires a fence'});
    }
    throw({forbidden: PREFIX + 'a fenced document cannot drop its fence'});
  }
  if (next.lock_key_digest !== stored.lock_key_digest) {
    throw({forbidden: PREFIX + 'lock identity differs from the stored fence'});
  }
  if (tokenOf(next, 'new') < tokenOf(stored, 'stored')) {
    throw({forbidden: PREFIX + 'fencing token below the stored token'});
  }
}
