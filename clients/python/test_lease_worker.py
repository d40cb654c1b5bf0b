#!/usr/bin/env python3
"""Tests of lease_worker.LeaseClient against a fake HTTP server on a local socket (standard library only).

Run: ``python3 -m unittest -v test_lease_worker`` in this directory; lease-worker-http's PythonClientTests runs it
in the Maven build. Each case scripts what the server answers and records every request the client sent.
"""

import datetime
import json
import socket
import threading
import time
import unittest

from lease_worker import LeaseClient, Reply

LEASE = {"lock_identity": {"target_namespace": "n", "target_id": "t", "actor_name": "a", "workflow_name": "w"},
         "lease_id": "lease-1", "fencing_token": 7}

SUCCESS = {"status": "success", "code": "lease_renewed", "correlation_id": "corr-1", "lease": dict(LEASE)}


def answer(status, envelope):
    body = json.dumps(envelope).encode("utf-8")
    return b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (status, len(body)) \
        + body


class FakeServer:
    """Accepts connections on 127.0.0.1; each request's JSON body is recorded and the connection is handed to the
    case's handler (connection, number of the request from 0)."""

    def __init__(self, handler):
        self.handler = handler
        self.requests = []
        self.stopped = threading.Event()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stopped.is_set():
            try:
                connection, _ = self.sock.accept()
            except socket.timeout:
                continue
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection):
        try:
            connection.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            head, body = data.split(b"\r\n\r\n", 1)
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")][0]
            while len(body) < length:
                body += connection.recv(65536)
            index = len(self.requests)
            self.requests.append(json.loads(body.decode("utf-8")))
            self.handler(connection, index, self)
        except OSError:
            pass
        finally:
            connection.close()

    def stop(self):
        self.stopped.set()
        self.thread.join()
        self.sock.close()


class LeaseClientTests(unittest.TestCase):

    def serve(self, handler):
        server = FakeServer(handler)
        self.addCleanup(server.stop)
        return server

    def call_in_thread(self, call, limit_s=60):
        """The call's Reply, or a failure when it has not returned within limit_s (not bounded)."""
        outcome = {}

        def run():
            try:
                outcome["reply"] = call()
            except Exception as ex:  # what the test reports: a call must never raise
                outcome["raised"] = ex

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(limit_s)
        self.assertFalse(thread.is_alive(), "the call did not return within %d s" % limit_s)
        self.assertNotIn("raised", outcome, "the call raised %r" % outcome.get("raised"))
        return outcome["reply"]

    def test_a_waiting_acquire_gets_the_answer_the_server_sends_before_the_deadline(self):
        # the server answers after 2 s, within the acquire's deadline (wait_ms 20 s + 5 s) but after the client's
        # timeout (0.5 s): the client must wait for it, not abandon the attempt and send another
        def handler(connection, index, server):
            time.sleep(2)
            connection.sendall(answer(200, dict(SUCCESS, code="lease_acquired")))

        server = self.serve(handler)
        client = LeaseClient(server.url, "k", "s", "inst-1", timeout=0.5)
        reply = self.call_in_thread(lambda: client.acquire("n", "t", "a", "w", ttl_ms=5000, execution_id="e",
                                                           job_id="j", trace_id="t", wait_ms=20000,
                                                           request_id="rq-wait"))
        self.assertEqual((reply.status, reply.code), (200, "lease_acquired"))
        self.assertTrue(reply.ok)
        self.assertEqual([r["request_id"] for r in server.requests], ["rq-wait"])

    def test_every_broken_answer_is_a_typed_reply_and_the_mutation_is_retried_with_the_same_request_id(self):
        cases = {
            "not json": (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n<html",
                         "malformed_response"),
            "a json array": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]", "malformed_response"),
            "a json object that is no envelope": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
                                                  "malformed_response"),
            "a proxy's error page": (b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 3\r\n\r\nbad",
                                     "malformed_response"),
            "not utf-8": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\xff\xfe", "malformed_response"),
            "a garbage status line": (b"garbage\r\n\r\n", "transport_error"),
            "a body cut short": (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                                 b"{\"a\":", "transport_error"),
            "no answer at all": (b"", "transport_error"),
        }
        for name, (raw, code) in cases.items():
            with self.subTest(name):
                server = self.serve(lambda connection, index, server, raw=raw: connection.sendall(raw))
                client = LeaseClient(server.url, "k", "s", "inst-1", timeout=5, attempts=3)
                reply = self.call_in_thread(lambda: client.renew(LEASE, request_id="rq-broken", ttl_ms=6000))
                self.assertIsInstance(reply, Reply)
                self.assertEqual((reply.status, reply.code), (0, code))
                self.assertFalse(reply.ok)
                self.assertEqual([(r["request_id"], r["ttl_ms"]) for r in server.requests], [("rq-broken", 6000)] * 3)

    def test_a_lost_answer_then_the_original_result(self):
        def handler(connection, index, server):
            if index == 0:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"status\":")
            elif index == 1:
                connection.sendall(answer(503, {"status": "error", "code": "lease_outcome_unknown", "msg": "x",
                                                "correlation_id": "c", "retryable": True, "retry_after_ms": 10}))
            else:
                connection.sendall(answer(200, dict(SUCCESS, replayed=True)))

        server = self.serve(handler)
        client = LeaseClient(server.url, "k", "s", "inst-1")
        reply = self.call_in_thread(lambda: client.release(LEASE, request_id="rq-lost"))
        self.assertEqual((reply.status, reply.code, reply.body.get("replayed")), (200, "lease_renewed", True))
        self.assertEqual([r["request_id"] for r in server.requests], ["rq-lost"] * 3)

    def test_a_response_trickled_byte_by_byte_is_bounded_by_the_deadline_not_per_read(self):
        # one byte every 0.1 s, forever: a timeout per socket read never fires; the attempt's bound (deadline 1 s
        # plus the margin) ends it
        def handler(connection, index, server):
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not server.stopped.is_set():
                connection.sendall(b" ")
                time.sleep(0.1)

        server = self.serve(handler)
        client = LeaseClient(server.url, "k", "s", "inst-1", timeout=0.5, attempts=2)
        reply = self.call_in_thread(lambda: client.acquire("n", "t", "a", "w", ttl_ms=5000, execution_id="e",
                                                           job_id="j", trace_id="t", request_id="rq-trickle",
                                                           deadline_in_s=1.0))
        self.assertEqual((reply.status, reply.code), (0, "transport_error"))
        self.assertEqual([r["request_id"] for r in server.requests], ["rq-trickle"] * 2)

    def test_headers_trickled_byte_by_byte_are_bounded_too(self):
        def handler(connection, index, server):
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            while not server.stopped.is_set():
                connection.sendall(b"X")
                time.sleep(0.1)

        server = self.serve(handler)
        client = LeaseClient(server.url, "k", "s", "inst-1", timeout=0.5, attempts=1)
        reply = self.call_in_thread(lambda: client.inspect(LEASE, deadline_in_s=1.0))
        self.assertEqual((reply.status, reply.code), (0, "transport_error"))

    def test_a_silent_server_is_a_transport_error_after_the_deadline(self):
        server = self.serve(lambda connection, index, server: server.stopped.wait())
        client = LeaseClient(server.url, "k", "s", "inst-1", timeout=0.5, attempts=2)
        reply = self.call_in_thread(lambda: client.renew(LEASE, request_id="rq-silent", deadline_in_s=1.0))
        self.assertEqual((reply.status, reply.code), (0, "transport_error"))
        self.assertEqual([r["request_id"] for r in server.requests], ["rq-silent"] * 2)

    def test_a_refused_connection_is_a_transport_error(self):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        url = "http://127.0.0.1:%d" % probe.getsockname()[1]
        probe.close()
        client = LeaseClient(url, "k", "s", "inst-1", attempts=2)
        reply = self.call_in_thread(lambda: client.authorize_commit(LEASE))
        self.assertEqual((reply.status, reply.code), (0, "transport_error"))

    def test_an_error_envelope_is_returned_as_is(self):
        server = self.serve(lambda connection, index, server: connection.sendall(answer(
            409, {"status": "error", "code": "lease_lost", "msg": "x", "correlation_id": "c", "retryable": False})))
        client = LeaseClient(server.url, "k", "s", "inst-1")
        reply = self.call_in_thread(lambda: client.renew(LEASE))
        self.assertEqual((reply.status, reply.code), (409, "lease_lost"))
        self.assertEqual(len(server.requests), 1)


    def test_renew_release_and_commit_send_the_jobs_ids_they_are_given_and_only_those(self):
        server = self.serve(lambda connection, index, server: connection.sendall(answer(200, SUCCESS)))
        client = LeaseClient(server.url, "k", "s", "inst-1")
        ids = {"execution_id": "exec-9", "job_id": "job-9", "trace_id": "trace-9"}
        for call in (lambda: client.renew(LEASE, **ids), lambda: client.release(LEASE, **ids),
                     lambda: client.authorize_commit(LEASE, **ids), lambda: client.renew(LEASE, trace_id="trace-8"),
                     lambda: client.release(LEASE)):
            self.assertTrue(self.call_in_thread(call).ok)
        sent = [{name: r[name] for name in ids if name in r} for r in server.requests]
        self.assertEqual(sent, [ids, ids, ids, {"trace_id": "trace-8"}, {}])
        with self.assertRaises(TypeError):
            client.renew(LEASE, trace="misspelt")

    def test_an_answer_larger_than_the_bound_is_malformed_and_not_read_into_memory(self):
        def declared(connection, index, server):
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 5000000000\r\n\r\n{\"status\":\"success\"")
            time.sleep(1)

        def streamed(connection, index, server):
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"x" * 65536
            try:
                for _ in range(64):  # 4 MiB, more than the bound, then an endless answer would go on
                    connection.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            except OSError:
                pass  # the client stopped reading and closed

        for name, handler in (("declared", declared), ("streamed", streamed)):
            with self.subTest(name):
                server = self.serve(handler)
                client = LeaseClient(server.url, "k", "s", "inst-1", attempts=1)
                reply = self.call_in_thread(lambda: client.renew(LEASE))
                self.assertEqual((reply.status, reply.code, reply.body.get("http_status")),
                                 (0, "malformed_response", 200))

    def test_a_deadline_that_is_no_number_of_seconds_is_refused_before_anything_is_sent(self):
        server = self.serve(lambda connection, index, server: connection.sendall(answer(200, SUCCESS)))
        client = LeaseClient(server.url, "k", "s", "inst-1")
        for deadline in (1e12, float("inf"), float("nan"), 0, -1, "5", True):
            with self.subTest(deadline=deadline):
                with self.assertRaises(ValueError):
                    client.renew(LEASE, deadline_in_s=deadline)
        self.assertEqual(server.requests, [])

    def test_a_replay_of_a_lease_that_is_no_longer_active_is_not_ok(self):
        # a retried call (same request_id) answered from the idempotency record: the original success, replayed,
        # with the lease's current_state; only an active lease lets the worker go on
        calls = {
            "acquire": (lambda c: c.acquire("n", "t", "a", "w", ttl_ms=5000, execution_id="e", job_id="j",
                                            trace_id="t", request_id="rq-replay"), "lease_acquired"),
            "renew": (lambda c: c.renew(LEASE, request_id="rq-replay"), "lease_renewed"),
            "authorize_commit": (lambda c: c.authorize_commit(LEASE), "lease_commit_authorized"),
        }
        for operation, (call, code) in calls.items():
            for state in ("revoked", "released", "expired", "lost", None):
                with self.subTest(operation=operation, current_state=state):
                    envelope = dict(SUCCESS, code=code, replayed=True)
                    envelope["lease"] = dict(LEASE, state="active")  # the original result's lease
                    if state is not None:
                        envelope["current_state"] = state
                    server = self.serve(lambda connection, index, server, envelope=envelope: connection.sendall(
                        answer(200, envelope)))
                    reply = self.call_in_thread(lambda: call(LeaseClient(server.url, "k", "s", "inst-1")))
                    self.assertFalse(reply.ok, "%s replayed with current_state %s is ok: %r" % (
                        operation, state, reply))
                    self.assertEqual((reply.status, reply.code, reply.server_code, reply.replayed,
                                      reply.current_state), (200, "lease_lost", code, True, state))
                    self.assertEqual(len(server.requests), 1)
            with self.subTest(operation=operation, current_state="active"):
                envelope = dict(SUCCESS, code=code, replayed=True, current_state="active")
                server = self.serve(lambda connection, index, server, envelope=envelope: connection.sendall(
                    answer(200, envelope)))
                reply = self.call_in_thread(lambda: call(LeaseClient(server.url, "k", "s", "inst-1")))
                self.assertTrue(reply.ok)
                self.assertEqual((reply.code, reply.replayed, reply.current_state), (code, True, "active"))

    def test_a_replayed_release_of_a_released_lease_is_ok(self):
        envelope = dict(SUCCESS, code="lease_released", replayed=True, current_state="released")
        envelope["lease"] = dict(LEASE, state="released")
        server = self.serve(lambda connection, index, server: connection.sendall(answer(200, envelope)))
        client = LeaseClient(server.url, "k", "s", "inst-1")
        reply = self.call_in_thread(lambda: client.release(LEASE, request_id="rq-release"))
        self.assertTrue(reply.ok)
        self.assertEqual((reply.code, reply.replayed, reply.current_state), ("lease_released", True, "released"))

    def test_a_renewal_or_commit_answered_after_the_deadline_sent_is_a_late_response_not_ok(self):
        # contract: a renewal response received after the local deadline does not grant authority; the fake server
        # answers success only once the deadline_at the client sent has passed
        def late(code):
            def handler(connection, index, server):
                deadline = datetime.datetime.strptime(server.requests[index]["deadline_at"],
                                                      "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
                past = (deadline - datetime.datetime.now(datetime.timezone.utc)).total_seconds() + 0.3
                server.stopped.wait(max(0.0, past))  # the answer is delayed past the deadline (latency)
                connection.sendall(answer(200, dict(SUCCESS, code=code)))
            return handler

        calls = {
            "renew": (lambda c: c.renew(LEASE, request_id="rq-late", deadline_in_s=0.5), "lease_renewed"),
            "authorize_commit": (lambda c: c.authorize_commit(LEASE, deadline_in_s=0.5), "lease_commit_authorized"),
        }
        for operation, (call, code) in calls.items():
            with self.subTest(operation):
                server = self.serve(late(code))
                reply = self.call_in_thread(lambda: call(LeaseClient(server.url, "k", "s", "inst-1")))
                self.assertFalse(reply.ok, "%s answered after its deadline is ok: %r" % (operation, reply))
                self.assertEqual((reply.status, reply.code, reply.server_code, reply.late),
                                 (200, "late_response", code, True))
                self.assertEqual(len(server.requests), 1)  # not retried: the caller inspects the lease

    def test_a_release_answered_after_the_deadline_stays_ok(self):
        def handler(connection, index, server):
            deadline = datetime.datetime.strptime(server.requests[index]["deadline_at"],
                                                  "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
            server.stopped.wait(max(0.0, (deadline - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
                                    + 0.3))
            connection.sendall(answer(200, dict(SUCCESS, code="lease_released")))

        server = self.serve(handler)
        client = LeaseClient(server.url, "k", "s", "inst-1")
        reply = self.call_in_thread(lambda: client.release(LEASE, deadline_in_s=0.5))
        self.assertTrue(reply.ok)
        self.assertEqual((reply.code, reply.late), ("lease_released", True))

if __name__ == "__main__":
    unittest.main()
