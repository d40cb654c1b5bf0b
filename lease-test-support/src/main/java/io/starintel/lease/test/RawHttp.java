package io.starintel.lease.test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/1.1 exchanges written byte by byte on a socket, for what an HTTP client library would not send (a header
 * twice, a body that stalls) or would hide (the response head as the server wrote it).
 */
public final class RawHttp {

	private RawHttp() {
	}

	/**
	 * Sends one request ({@code Connection: close} is added) and returns the whole answer, lower-cased.
	 * @param port the server's port on 127.0.0.1
	 * @param requestLineAndHeaders the request line and headers, each ending with CRLF, without the blank line
	 * @param body the body ({@code Content-Length} is the caller's), empty for none
	 */
	public static String exchange(int port, String requestLineAndHeaders, byte[] body) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write((requestLineAndHeaders + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
			out.write(body);
			out.flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
		}
	}

	/** Reads an answer's head (status line and headers, up to the blank line), lower-cased. */
	public static String head(InputStream in) throws IOException {
		ByteArrayOutputStream received = new ByteArrayOutputStream();
		while (!received.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
			int b = in.read();
			assertThat(b).as("the answer ended within its head: " + received).isNotNegative();
			received.write(b);
		}
		return received.toString(StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
	}

}
