package io.starintel.lease.http.internal;

import java.io.IOException;
import java.io.PrintWriter;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.jspecify.annotations.Nullable;

/**
 * An answer given before the request's body was read to its end (a 401 that never reads it, an early 400, a body over
 * the bound): the connection closes after the answer and no thread waits for the rest of the body (docs/worker-api.md,
 * "Request bodies").
 *
 * <p>Why: a servlet container keeps a connection open after such an answer by reading ("swallowing") the rest of the
 * body with the request's thread; Tomcat does so up to {@code maxSwallowSize} (2 MB) until its connection timeout, so
 * a few hundred clients that declare a body and stall hold every thread without any credential. {@code Connection:
 * close} alone does not stop that: Tomcat still swallows at the end of a synchronous request. What does, in any
 * servlet container: the answer carries {@code Connection: close} ({@link #closeConnection}, HTTP/1.x only: HTTP/2
 * forbids the header, and its streams need no swallow) and the request then ends through an async cycle that
 * completes at once ({@link #endWithoutSwallow}): Tomcat closes a connection that is not kept alive at the end of an
 * async cycle without reading the rest (Jetty never blocks on unread input). Nothing of the rest is read: Tomcat closes
 * the request's input once the answer is complete, so there is nothing to drain it with; a client still sending its
 * body then sees the connection closed (possibly reset), as for any server's early refusal of an upload.
 */
public final class UnreadBody {

	private UnreadBody() {
	}

	/**
	 * Whether the request declares a body (a positive {@code Content-Length}, or a {@code Transfer-Encoding}) that was
	 * not read to its end. Call it once the application has read what it will: it takes the request's input stream.
	 */
	public static boolean pending(HttpServletRequest request) {
		if (request.getContentLengthLong() <= 0 && request.getHeader("Transfer-Encoding") == null) {
			return false;
		}
		try {
			return !request.getInputStream().isFinished();
		}
		catch (IOException | RuntimeException ex) {
			// read through its reader, or unreadable: not known to be at its end (fail closed: close the connection)
			return true;
		}
	}

	/** Asks for the connection to be closed after the answer (before the response is committed; HTTP/1.x only). */
	public static void closeConnection(HttpServletRequest request, HttpServletResponse response) {
		String protocol = request.getProtocol();
		if (!response.isCommitted() && protocol != null && protocol.startsWith("HTTP/1.")) {
			response.setHeader("Connection", "close");
		}
	}

	/**
	 * A response that asks for the connection to be closed ({@link #closeConnection}) when it is committed before the
	 * request's body was read to its end (for answers written by components that do not know about the body, such as
	 * Spring Security's).
	 */
	public static HttpServletResponse closingWhenUnread(HttpServletRequest request, HttpServletResponse response) {
		return new ClosingResponse(request, response);
	}

	/**
	 * Ends a request whose answer is written (with {@code Connection: close}) through an async cycle that completes at
	 * once, so that the container closes the connection without reading the rest of the body. Nothing is done when the
	 * request cannot go async (a filter without async support in front) or already did: the container then swallows
	 * the rest with the request's thread, as without this class.
	 * @return whether the request ends through the async cycle
	 */
	public static boolean endWithoutSwallow(HttpServletRequest request, HttpServletResponse response) {
		if (!request.isAsyncSupported() || request.isAsyncStarted()) {
			return false;
		}
		try {
			request.startAsync(request, response).complete();
			return true;
		}
		catch (IllegalStateException ex) {
			return false;
		}
	}

	/** Adds {@code Connection: close} when the answer is committed while the body is still unread. */
	private static final class ClosingResponse extends HttpServletResponseWrapper {

		private final HttpServletRequest request;

		ClosingResponse(HttpServletRequest request, HttpServletResponse response) {
			super(response);
			this.request = request;
		}

		private void beforeCommit() {
			if (!isCommitted() && pending(this.request)) {
				closeConnection(this.request, (HttpServletResponse) getResponse());
			}
		}

		@Override
		public ServletOutputStream getOutputStream() throws IOException {
			beforeCommit();
			return super.getOutputStream();
		}

		@Override
		public PrintWriter getWriter() throws IOException {
			beforeCommit();
			return super.getWriter();
		}

		@Override
		public void flushBuffer() throws IOException {
			beforeCommit();
			super.flushBuffer();
		}

		@Override
		public void sendError(int sc, @Nullable String msg) throws IOException {
			beforeCommit();
			super.sendError(sc, msg);
		}

		@Override
		public void sendError(int sc) throws IOException {
			beforeCommit();
			super.sendError(sc);
		}

		@Override
		public void sendRedirect(String location) throws IOException {
			beforeCommit();
			super.sendRedirect(location);
		}

	}

}
