#!/usr/bin/env python3
"""A StarIntel target-lease worker client over the worker HTTP API (/lease/v1), standard library only.

Library use::

    from lease_worker import LeaseClient
    client = LeaseClient("http://127.0.0.1:8080", "key_worker_01", secret, "instance-01")
    reply = client.acquire("starintel-target", "target_01", "usernamegen", "default", ttl_ms=30000,
                           execution_id="exec-1", job_id="job-1", trace_id="trace-1")
    if reply.code == "lease_acquired":
        lease = reply.lease
        client.renew(lease)                       # before expires_at, e.g. every ttl/3
        client.renew(lease, ttl_ms=60000)         # keep-alive with a new TTL (within policy and the lifetime)
        if client.authorize_commit(lease).ok:     # just before an authoritative write
            ...
        client.release(lease)

Every mutating call carries a request_id; a lost or cut response (connection error, timeout, a response cut
mid-body or not an envelope of the API, e.g. a proxy's error page) or a 503 lease_outcome_unknown is retried with
the *same* request_id and body, so the server returns the original result instead of acting twice (contract:
idempotency by request_id). Tenant and program are never sent: they come from the credential.

Every call returns a Reply, never raises for what the network or the server did: status 0 with code
``transport_error`` (no complete answer) or ``malformed_response`` (a complete answer that is not the API's JSON
envelope; ``http_status`` says which status came) after the last attempt. Each attempt sends a fresh
``deadline_at`` (now + ``deadline_in_s``; an acquire with ``wait_ms`` extends it to ``wait_ms`` + 5 s) and waits for
the answer, as a whole (connect, send, status, headers and body: not per socket read), until that deadline plus
``RESPONSE_MARGIN_S``, or ``timeout`` when that is longer: the server may answer until the deadline (a waiting
acquire does), so the client never abandons an attempt the server may still grant. A call therefore takes at most
``attempts`` times that bound plus the pauses between attempts.

``Reply.ok`` is true only for a success that still grants what was asked: a replay (``replayed``) of acquire, renew
or authorize-commit whose lease is no longer active (``current_state`` revoked, released, expired) is code
``lease_lost``, and a renew or authorize-commit success received after the deadline_at sent (local monotonic clock)
is code ``late_response`` (inspect the lease before continuing); ``server_code`` keeps what the server answered.

Command line: ``python3 lease_worker.py race ...`` runs the scenario the integration test drives (see
``--help``); the secret is read from the LEASE_WORKER_SECRET environment variable, never from the arguments.
"""

import argparse
import base64
import datetime
import http.client
import io
import json
import os
import select
import socket
import sys
import time
import urllib.parse
import uuid

RETRYABLE_UNKNOWN = ("lease_outcome_unknown", "lease_backend_unavailable")

# the job's ids renew, release and authorize_commit may name (audit only)
AUDIT_IDS = ("execution_id", "job_id", "trace_id")

# how long past a request's deadline_at an attempt still waits for the server's answer (network, scheduling)
RESPONSE_MARGIN_S = 2.0

# the longest deadline_in_s accepted (the server refuses deadlines beyond its request.maximum-deadline, 2 min by
# default, with a typed 400; this only keeps the arithmetic finite)
MAX_DEADLINE_S = 86400

# a replayed success of these operations is ok only while its lease is still active (current_state)
ACTIVE_LEASE_OPERATIONS = ("acquire", "renew", "authorize-commit")

# a success of these operations received after the deadline_at sent grants nothing (contract: a late renewal)
DEADLINE_BOUND_OPERATIONS = ("renew", "authorize-commit")

# the largest answer read (envelopes are a few KB): a larger one, declared or streamed, is a malformed_response
MAX_RESPONSE_BYTES = 1 << 20


class Reply:
    """One answer of the worker API: HTTP status and the contract's envelope; status 0 when no envelope came
    (body code ``transport_error`` or ``malformed_response``).

    ``ok`` is true only for a success envelope that still grants what the call asked for. The client's own verdict
    replaces the server's success ``code`` (kept in ``server_code``; status and body stay as they came) when it
    does not:

    - ``lease_lost``: a replay (``replayed`` true: the original result of the same request_id, e.g. after a lost
      answer or ``lease_outcome_unknown``) of acquire, renew or authorize-commit whose lease is no longer active
      (``current_state`` names its state now, e.g. ``revoked``; None when the server sent none). The lease in the
      body is the original result's: stop work on it and do not commit; acquire again with a new request_id.
    - ``late_response``: a renew or authorize-commit success received after the deadline_at the client sent
      (measured on the local monotonic clock; ``late`` is true). A late renewal grants no authority (contract):
      inspect the lease before continuing.

    A replayed release whose lease is ``released`` is ok, as is a late release, acquire, inspect or resolve."""

    def __init__(self, status, body, operation=None, late=False):
        self.status = status
        self.body = body
        self.operation = operation  # the path's operation (acquire, renew, release, authorize-commit, ...)
        self.late = late            # an envelope received after the deadline_at sent with its attempt

    @property
    def server_code(self):
        """The code the server (or, with status 0, the client's transport) answered."""
        return self.body.get("code")

    @property
    def replayed(self):
        return self.body.get("replayed") is True

    @property
    def current_state(self):
        """A replay's state of the lease now (active, expired, released, revoked), else None."""
        return self.body.get("current_state")

    @property
    def code(self):
        code = self.server_code
        if not self._success():
            return code
        if self.replayed and self.operation in ACTIVE_LEASE_OPERATIONS and self.current_state != "active":
            return "lease_lost"
        if self.late and self.operation in DEADLINE_BOUND_OPERATIONS:
            return "late_response"
        return code

    @property
    def ok(self):
        return self._success() and self.code == self.server_code

    @property
    def lease(self):
        return self.body.get("lease")

    def _success(self):
        return self.status == 200 and self.body.get("status") == "success"

    def __repr__(self):
        code = self.code
        if code == self.server_code:
            return "%d %s" % (self.status, code)
        if code == "late_response":
            return "%d %s (%s after the deadline)" % (self.status, code, self.server_code)
        return "%d %s (%s replayed, current_state %s)" % (self.status, code, self.server_code, self.current_state)


class LeaseClient:
    """Calls the worker API with HTTP Basic credentials (credential id, secret) for one service instance."""

    def __init__(self, base_url, credential_id, secret, service_instance_id, timeout=10.0, attempts=4):
        """timeout: the least time one attempt may take as a whole (it is extended to the request's deadline plus
        RESPONSE_MARGIN_S); attempts: tries of a call whose answer was lost, cut, malformed or an unknown outcome."""
        self.base_url = base_url.rstrip("/")
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("base_url must be an http:// or https:// URL")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._path = parts.path
        token = base64.b64encode(("%s:%s" % (credential_id, secret)).encode("utf-8")).decode("ascii")
        self._authorization = "Basic " + token
        self.service_instance_id = service_instance_id
        self.timeout = timeout
        self.attempts = attempts

    # -- operations ---------------------------------------------------------------------------------------------

    def acquire(self, target_namespace, target_id, actor_name, workflow_name, ttl_ms, execution_id, job_id,
                trace_id, operation_class=None, maximum_lifetime_ms=None, wait_ms=None, metadata=None,
                request_id=None, deadline_in_s=5.0):
        identity = {"target_namespace": target_namespace, "target_id": target_id, "actor_name": actor_name,
                    "workflow_name": workflow_name}
        if operation_class:
            identity["operation_class"] = operation_class
        body = {"request_id": request_id or new_id("req"), "lock_identity": identity, "ttl_ms": ttl_ms,
                "execution_id": execution_id, "job_id": job_id, "trace_id": trace_id}
        if maximum_lifetime_ms is not None:
            body["maximum_lifetime_ms"] = maximum_lifetime_ms
        if wait_ms is not None:
            body["wait_ms"] = wait_ms
            deadline_in_s = max(deadline_in_s, wait_ms / 1000.0 + 5.0)
        if metadata is not None:
            body["metadata"] = metadata
        return self.post("acquire", body, deadline_in_s)

    # renew, release and authorize_commit take the job's ids (execution_id, job_id, trace_id), all optional: the
    # server only writes them into the audit event of the call (also of a refused one); they are not compared

    def renew(self, lease, request_id=None, ttl_ms=None, deadline_in_s=5.0, **ids):
        """renew-if-owner; ttl_ms (optional) is a new TTL within policy, kept by later renewals; the lease's
        maximum lifetime still caps expires_at. A retry must send the same ttl_ms (it is part of the request)."""
        body = self._handle(lease, request_id or new_id("req"), ids)
        if ttl_ms is not None:
            body["ttl_ms"] = ttl_ms
        return self.post("renew", body, deadline_in_s)

    def release(self, lease, request_id=None, deadline_in_s=5.0, **ids):
        return self.post("release", self._handle(lease, request_id or new_id("req"), ids), deadline_in_s)

    def authorize_commit(self, lease, deadline_in_s=5.0, **ids):
        return self.post("authorize-commit", self._handle(lease, None, ids), deadline_in_s)

    def inspect(self, lease, deadline_in_s=5.0):
        body = self._handle(lease, None)
        del body["fencing_token"]
        return self.post("inspect", body, deadline_in_s)

    def resolve(self, lease_identity, operation, request_id, deadline_in_s=5.0):
        return self.post("resolve", {"lock_identity": caller_identity(lease_identity), "operation": operation,
                                     "request_id": request_id}, deadline_in_s)

    # -- transport ------------------------------------------------------------------------------------------------

    @staticmethod
    def _handle(lease, request_id, ids=None):
        body = {"lock_identity": caller_identity(lease["lock_identity"]), "lease_id": lease["lease_id"],
                "fencing_token": lease["fencing_token"]}
        if request_id is not None:
            body["request_id"] = request_id
        for name, value in (ids or {}).items():
            if name not in AUDIT_IDS:
                raise TypeError("unexpected keyword argument %r (ids: %s)" % (name, ", ".join(AUDIT_IDS)))
            if value is not None:
                body[name] = value
        return body

    def post(self, operation, body, deadline_in_s=5.0):
        """POSTs one operation; retries a lost, cut or malformed answer or an unknown outcome with the same body
        (same request_id) and a fresh deadline_at. Returns a Reply, never raises for the network or the server; a
        late answer or a replay of a lease no longer active is not retried (see Reply)."""
        if isinstance(deadline_in_s, bool) or not isinstance(deadline_in_s, (int, float)) \
                or not 0 < deadline_in_s <= MAX_DEADLINE_S:
            raise ValueError("deadline_in_s must be a number of seconds in (0, %d], not %r"
                             % (MAX_DEADLINE_S, deadline_in_s))
        body = dict(body)
        body["service_instance_id"] = self.service_instance_id
        last = None
        for attempt in range(self.attempts):
            # the deadline on the local monotonic clock, read before the wall clock of deadline_at: never later
            local_deadline = time.monotonic() + deadline_in_s
            body["deadline_at"] = iso_in(deadline_in_s)
            # the whole exchange, not each socket read, ends by the request's deadline plus a margin (or timeout)
            ends_at = time.monotonic() + max(self.timeout, deadline_in_s + RESPONSE_MARGIN_S)
            last = self._send(operation, body, ends_at)
            last.operation = operation
            last.late = last.status != 0 and time.monotonic() > local_deadline
            if last.status != 0 and last.code not in RETRYABLE_UNKNOWN:
                return last
            if attempt + 1 < self.attempts:
                time.sleep(min(2.0, (last.body.get("retry_after_ms") or 100) / 1000.0 * (attempt + 1)))
        return last

    def _send(self, operation, body, ends_at):
        data = json.dumps(body).encode("utf-8")
        connection_class = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        connection = None
        try:
            remaining = _remaining(ends_at)
            connection = connection_class(self._host, self._port, timeout=remaining)
            connection.request("POST", self._path + "/lease/v1/leases/" + operation, body=data,
                               headers={"Content-Type": "application/json", "Authorization": self._authorization,
                                        "Connection": "close"})
            response = http.client.HTTPResponse(_BoundedSocket(connection.sock, ends_at), method="POST")
            response.begin()
            status = response.status
            payload = _read_bounded(response)
            if payload is None:
                return Reply(0, {"code": "malformed_response", "msg": "an answer larger than %d bytes"
                                 % MAX_RESPONSE_BYTES, "http_status": status})
        except (OSError, http.client.HTTPException) as ex:
            return Reply(0, {"code": "transport_error", "msg": type(ex).__name__})
        finally:
            if connection is not None:
                connection.close()
        try:
            envelope = json.loads(payload.decode("utf-8"))
        except ValueError:
            envelope = None
        if not (isinstance(envelope, dict) and envelope.get("status") in ("success", "error")
                and isinstance(envelope.get("code"), str)):
            return Reply(0, {"code": "malformed_response", "msg": "not an envelope of the worker API",
                             "http_status": status})
        return Reply(status, envelope)


def _read_bounded(response):
    """The whole body, or None when it is (declared or turns out) larger than MAX_RESPONSE_BYTES; a body cut short
    raises IncompleteRead as read() does."""
    if response.length is not None:
        return None if response.length > MAX_RESPONSE_BYTES else response.read()
    payload = b""
    while len(payload) <= MAX_RESPONSE_BYTES:
        chunk = response.read(65536)
        if not chunk:
            return payload
        payload += chunk
    return None


def _remaining(ends_at):
    remaining = ends_at - time.monotonic()
    if remaining <= 0:
        raise socket.timeout("the request's deadline passed")
    return remaining


class _BoundedReader(io.RawIOBase):
    """A socket's input where every read waits at most until ends_at: the whole response is bounded, however
    slowly it trickles in."""

    def __init__(self, sock, ends_at):
        super().__init__()
        self._sock = sock
        self._ends_at = ends_at

    def readable(self):
        return True

    def readinto(self, buffer):
        self._sock.settimeout(_remaining(self._ends_at))
        return self._sock.recv_into(buffer)


class _BoundedSocket:
    """What http.client.HTTPResponse reads a response from (it only calls makefile)."""

    def __init__(self, sock, ends_at):
        self._sock = sock
        self._ends_at = ends_at

    def makefile(self, mode, *args, **kwargs):
        return io.BufferedReader(_BoundedReader(self._sock, self._ends_at))


def caller_identity(lock_identity):
    """The identity components a worker sends (tenant and program come from its credential)."""
    return {k: lock_identity[k] for k in ("target_namespace", "target_id", "actor_name", "workflow_name",
                                           "operation_class") if k in lock_identity}


def new_id(prefix):
    return "%s-%s" % (prefix, uuid.uuid4())


def iso_in(seconds):
    at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (at.microsecond // 1000)


# -- the scenario the integration test drives ---------------------------------------------------------------------

class Scenario:
    """Race for targets, renew past several TTLs, wait for an administrator's revoke, then check the refusals."""

    def __init__(self, args, client):
        self.args = args
        self.client = client
        self.name = args.name
        self.held = {}
        self.last_renewal = {}  # target -> (request_id, ttl_ms) of its last renewal, replayed after a revoke
        self.failures = []
        self.ids = {"execution_id": "exec-" + self.name, "job_id": "job-" + self.name,
                    "trace_id": "trace-" + self.name}

    def say(self, text):
        print("[%s] %s" % (self.name, text), flush=True)

    def event(self, kind, **fields):
        fields["kind"] = kind
        fields["worker"] = self.name
        print("EVENT " + json.dumps(fields, sort_keys=True), flush=True)

    def expect(self, what, reply, code):
        if reply.code != code:
            self.failures.append("%s: expected %s, got %r" % (what, code, reply))
            self.say("UNEXPECTED %s -> %r (expected %s)" % (what, reply, code))

    def acquire(self, target):
        return self.client.acquire(self.args.namespace, target, self.args.actor, "default", self.args.ttl_ms,
                                   execution_id=new_id("exec"), job_id="job-" + self.name,
                                   trace_id=new_id("trace"), metadata={"worker": self.name})

    def race(self):
        for target in self.args.targets.split(","):
            request_id = new_id("req")
            reply = self.client.acquire(self.args.namespace, target, self.args.actor, "default", self.args.ttl_ms,
                                        execution_id="exec-" + self.name, job_id="job-" + self.name,
                                        trace_id="trace-" + self.name, request_id=request_id)
            if reply.ok:
                lease = reply.lease
                self.held[target] = lease
                self.say("acquire %s -> %r token=%d lease_id=%s expires_at=%s" % (
                    target, reply, lease["fencing_token"], lease["lease_id"], lease["expires_at"]))
                # a lost response: the same request again returns the original lease and token
                replay = self.client.acquire(self.args.namespace, target, self.args.actor, "default",
                                             self.args.ttl_ms, execution_id="exec-" + self.name,
                                             job_id="job-" + self.name, trace_id="trace-" + self.name,
                                             request_id=request_id)
                same = replay.ok and replay.lease["fencing_token"] == lease["fencing_token"] \
                    and replay.lease["lease_id"] == lease["lease_id"]
                self.say("retry of the same request_id -> %r same lease and token: %s" % (replay, same))
                if not same:
                    self.failures.append("replay of %s returned another lease" % target)
                self.event("acquired", target=target, lease_id=lease["lease_id"], token=lease["fencing_token"])
            else:
                self.say("acquire %s -> %r retryable=%s retry_after_ms=%s" % (
                    target, reply, reply.body.get("retryable"), reply.body.get("retry_after_ms")))
                self.event("refused", target=target, code=reply.code)

    def renew_all(self, quiet=False, ttl_ms=None):
        for target, lease in list(self.held.items()):
            request_id = new_id("req")
            reply = self.client.renew(lease, request_id=request_id, ttl_ms=ttl_ms, **self.ids)
            if reply.ok:
                self.held[target] = reply.lease
                self.last_renewal[target] = (request_id, ttl_ms)
                if ttl_ms is not None:
                    self.say("renew %s with ttl_ms=%d -> %r token=%d ttl_ms=%d renewed_at=%s expires_at=%s" % (
                        target, ttl_ms, reply, reply.lease["fencing_token"], reply.lease["ttl_ms"],
                        reply.lease["renewed_at"], reply.lease["expires_at"]))
                    if reply.lease["ttl_ms"] != ttl_ms:
                        self.failures.append("renewal of %s with ttl_ms=%d answered ttl_ms=%d" % (
                            target, ttl_ms, reply.lease["ttl_ms"]))
                    self.event("renewed_with_ttl", target=target, ttl_ms=reply.lease["ttl_ms"],
                               renewed_at=reply.lease["renewed_at"], expires_at=reply.lease["expires_at"])
                elif not quiet:
                    self.say("renew %s -> %r token=%d expires_at=%s" % (
                        target, reply, reply.lease["fencing_token"], reply.lease["expires_at"]))
            else:
                self.say("renew %s -> %r: lease lost, stopping work on it" % (target, reply))
                self.failures.append("renewal of %s refused before the revoke: %r" % (target, reply))
                del self.held[target]

    def run(self):
        self.race()
        started = time.monotonic()
        for i in range(self.args.renewals):
            time.sleep(self.args.renew_every_ms / 1000.0)
            # the first renewal asks for a new TTL when --renew-ttl-ms is given; later ones keep it
            new_ttl = self.args.renew_ttl_ms if (i == 0 and self.args.renew_ttl_ms) else None
            self.renew_all(quiet=0 < i < self.args.renewals - 1, ttl_ms=new_ttl)
        held_ms = int((time.monotonic() - started) * 1000)
        self.say("renewed %d times over %d ms = %.1f TTLs; tokens unchanged" % (
            self.args.renewals, held_ms, held_ms / float(self.args.ttl_ms)))
        self.event("ready", held={t: l["lease_id"] for t, l in self.held.items()}, held_ms=held_ms)
        command = self.wait_for_command()
        if command and command[0] == "revoked":
            self.after_revoke(command[1])
        for target, lease in list(self.held.items()):
            reply = self.client.release(lease, **self.ids)
            self.say("release %s -> %r state=%s" % (target, reply, (reply.lease or {}).get("state")))
            self.expect("release " + target, reply, "lease_released")
        self.event("done", failures=self.failures)
        return 0 if not self.failures else 1

    def wait_for_command(self):
        """Keeps renewing (quietly) while waiting for the test's line on stdin: 'revoked <target>' or 'none'."""
        while True:
            readable, _, _ = select.select([sys.stdin], [], [], self.args.renew_every_ms / 1000.0)
            if readable:
                line = sys.stdin.readline()
                return line.split() if line else None
            self.renew_all(quiet=True)

    def after_revoke(self, target):
        lease = self.held.pop(target)
        self.say("administrator revoked %s (lease_id=%s token=%d)" % (target, lease["lease_id"],
                                                                      lease["fencing_token"]))
        # a retry of the last renewal (as after a lost answer): the server replays its success, the client
        # reports the lease lost (current_state revoked), not ok
        request_id, ttl_ms = self.last_renewal[target]
        replay = self.client.renew(lease, request_id=request_id, ttl_ms=ttl_ms, **self.ids)
        self.say("retry of the last renewal of %s (same request_id) -> %r ok=%s" % (target, replay, replay.ok))
        self.expect("replayed renewal after revoke", replay, "lease_lost")
        if replay.ok or not replay.replayed or replay.current_state != "revoked":
            self.failures.append("replayed renewal after revoke: %r replayed=%s current_state=%s" % (
                replay, replay.replayed, replay.current_state))
        self.event("renewal_replayed_after_revoke", target=target, code=replay.code,
                   server_code=replay.server_code, ok=replay.ok, replayed=replay.replayed,
                   current_state=replay.current_state)
        renew = self.client.renew(lease, **self.ids)
        self.say("renew %s -> %r retryable=%s" % (target, renew, renew.body.get("retryable")))
        self.expect("renew after revoke", renew, "lease_lost")
        commit = self.client.authorize_commit(lease, **self.ids)
        self.say("authorize-commit %s with token %d -> %r" % (target, lease["fencing_token"], commit))
        self.expect("authorize-commit after revoke", commit, "lease_lost")
        again = self.acquire(target)
        self.expect("reacquire", again, "lease_acquired")
        if again.ok:
            higher = again.lease["fencing_token"] > lease["fencing_token"]
            self.say("reacquire %s -> %r token=%d (> %d: %s)" % (target, again, again.lease["fencing_token"],
                                                                  lease["fencing_token"], higher))
            if not higher:
                self.failures.append("reacquired token is not higher")
            self.held[target] = again.lease
            commit = self.client.authorize_commit(again.lease, **self.ids)
            self.say("authorize-commit %s with token %d -> %r" % (target, again.lease["fencing_token"], commit))
            self.expect("authorize-commit of the new lease", commit, "lease_commit_authorized")
            self.event("reacquired", target=target, old_token=lease["fencing_token"],
                       new_token=again.lease["fencing_token"])


def main(argv=None):
    parser = argparse.ArgumentParser(description="StarIntel target-lease worker (worker HTTP API)")
    sub = parser.add_subparsers(dest="command", required=True)
    race = sub.add_parser("race", help="race for targets, renew, wait for a revoke on stdin, check refusals")
    race.add_argument("--base-url", required=True)
    race.add_argument("--credential-id", required=True)
    race.add_argument("--instance", required=True, help="service instance id")
    race.add_argument("--name", required=True, help="name printed on each line")
    race.add_argument("--targets", required=True, help="comma-separated target ids, tried in this order")
    race.add_argument("--namespace", default="starintel-target")
    race.add_argument("--actor", default="usernamegen")
    race.add_argument("--ttl-ms", type=int, default=2000)
    race.add_argument("--renew-every-ms", type=int, default=200)
    race.add_argument("--renewals", type=int, default=40)
    race.add_argument("--renew-ttl-ms", type=int, default=0,
                      help="a new TTL for the first renewal (keep-alive with a new TTL); 0: keep the TTL")
    args = parser.parse_args(argv)
    secret = os.environ.get("LEASE_WORKER_SECRET")
    if not secret:
        parser.error("LEASE_WORKER_SECRET is not set")
    client = LeaseClient(args.base_url, args.credential_id, secret, args.instance)
    return Scenario(args, client).run()


if __name__ == "__main__":
    sys.exit(main())
