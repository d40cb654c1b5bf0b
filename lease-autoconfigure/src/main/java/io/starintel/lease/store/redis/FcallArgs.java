package io.starintel.lease.store.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;

/**
 * The arguments of one {@code FCALL function numkeys keys... args...}, added as Lettuce adds them (so counting,
 * cluster routing by the first key and command strings work as usual) and written to the wire as RESP bulk strings
 * directly from the prepared byte arrays, with no per-argument length text (Lettuce formats every length of 10 or
 * more through {@code Long.toString}).
 */
final class FcallArgs extends CommandArgs<byte[], byte[]> {

	private static final byte[] CRLF = { '\r', '\n' };

	private final byte[] function;

	private final byte[] keyCount;

	private final byte[][] keys;

	private final byte[][] args;

	FcallArgs(LeaseLibrary.Function function, byte[][] keys, byte[][] args) {
		super(ByteArrayCodec.INSTANCE);
		this.function = function.nameBytes();
		this.keyCount = Integer.toString(keys.length).getBytes(StandardCharsets.US_ASCII);
		this.keys = keys;
		this.args = args;
		add(this.function).add(keys.length).addKeys(keys).addValues(args);
	}

	@Override
	public void encode(ByteBuf buf) {
		bulk(buf, this.function);
		bulk(buf, this.keyCount);
		for (byte[] key : this.keys) {
			bulk(buf, key);
		}
		for (byte[] arg : this.args) {
			bulk(buf, arg);
		}
	}

	private static void bulk(ByteBuf buf, byte[] value) {
		buf.writeByte('$');
		decimal(buf, value.length);
		buf.writeBytes(CRLF);
		buf.writeBytes(value);
		buf.writeBytes(CRLF);
	}

	private static void decimal(ByteBuf buf, int value) {
		if (value < 10) {
			buf.writeByte('0' + value);
			return;
		}
		int divisor = 1;
		while (value / divisor >= 10) {
			divisor *= 10;
		}
		while (divisor > 0) {
			buf.writeByte('0' + (value / divisor) % 10);
			divisor /= 10;
		}
	}

}
