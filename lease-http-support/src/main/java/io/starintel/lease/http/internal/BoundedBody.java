package io.starintel.lease.http.internal;

import java.io.IOException;
import java.io.InputStream;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * A request body read up to a bound, the one read both adapters do: a body larger than the bound (declared or sent)
 * or one that cannot be read is never parsed, and nothing past the bound is buffered.
 */
public final class BoundedBody {

	private BoundedBody() {
	}

	/** At most {@code maxBodyBytes} of the body; {@code null} when the body is larger or cannot be read. */
	public static byte @Nullable [] read(HttpServletRequest request, int maxBodyBytes) {
		if (request.getContentLengthLong() > maxBodyBytes) {
			return null;
		}
		try (InputStream in = request.getInputStream()) {
			// one byte past the bound tells a body at the bound from a larger one (a long sum: never overflows)
			byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE, maxBodyBytes + 1L));
			return (bytes.length > maxBodyBytes) ? null : bytes;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

}
