/*
 * Copyright 2026 the mcp-stdio authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.mcpstdio.core.containment;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The seccomp BPF program that bubblewrap loads for a sandboxed server
 * ({@code bwrap --seccomp FD}): it refuses the syscalls of a foreign architecture (and,
 * on x86_64, the x32 ones), the keyring calls, io_uring (which could open sockets past
 * the filter), and, for {@code network: none}, {@code socket(AF_UNIX, ...)}; it allows
 * everything else, {@code socketpair} included.
 *
 * @param architecture the native architecture the program checks for
 * @author mcp-stdio authors
 */
record SeccompFilter(Architecture architecture) {

	private static final int LD_W_ABS = 0x20;

	private static final int JEQ_K = 0x15;

	private static final int JGE_K = 0x35;

	private static final int RET_K = 0x06;

	private static final int RET_ALLOW = 0x7fff0000;

	private static final int RET_ERRNO = 0x00050000;

	private static final int EACCES = 13;

	private static final int ENOSYS = 38;

	private static final int AF_UNIX = 1;

	/** The offsets of struct seccomp_data's fields: nr, arch, args[0] (its low word). */
	private static final int NR = 0;

	private static final int ARCH = 4;

	private static final int ARG0 = 16;

	/**
	 * io_uring_setup, io_uring_enter, io_uring_register: the same on every architecture.
	 */
	private static final int[] IO_URING = { 425, 426, 427 };

	/**
	 * Return the filter of this machine's architecture.
	 * @return the filter, {@code null} where the starter has none
	 */
	static @Nullable SeccompFilter ofThisMachine() {
		Architecture architecture = Architecture.of(System.getProperty("os.arch", ""));
		return (architecture != null) ? new SeccompFilter(architecture) : null;
	}

	/**
	 * Return the program, as {@code struct sock_filter}s in the native byte order.
	 * @param refuseUnixSockets whether {@code socket(AF_UNIX, ...)} fails with EACCES
	 * @return the program
	 */
	byte[] program(boolean refuseUnixSockets) {
		Architecture arch = this.architecture;
		List<int[]> code = new ArrayList<>();
		// jumps go forward only; the labels -1 (refuse with ENOSYS) and -2 (check
		// socket's family) are resolved below
		code.add(statement(LD_W_ABS, ARCH));
		code.add(jump(JEQ_K, arch.audit, 0, -1));
		code.add(statement(LD_W_ABS, NR));
		if (arch.x32Bit != 0) {
			code.add(jump(JGE_K, arch.x32Bit, -1, 0));
		}
		for (int nr : arch.keyrings) {
			code.add(jump(JEQ_K, nr, -1, 0));
		}
		for (int nr : IO_URING) {
			code.add(jump(JEQ_K, nr, -1, 0));
		}
		if (refuseUnixSockets) {
			code.add(jump(JEQ_K, arch.socket, -2, 0));
		}
		code.add(statement(RET_K, RET_ALLOW));
		int refuse = code.size();
		code.add(statement(RET_K, RET_ERRNO | ENOSYS));
		int unix = code.size();
		code.add(statement(LD_W_ABS, ARG0));
		code.add(jump(JEQ_K, AF_UNIX, 0, 1));
		code.add(statement(RET_K, RET_ERRNO | EACCES));
		code.add(statement(RET_K, RET_ALLOW));
		ByteBuffer bytes = ByteBuffer.allocate(code.size() * 8).order(ByteOrder.nativeOrder());
		for (int i = 0; i < code.size(); i++) {
			int[] instruction = code.get(i);
			bytes.putShort((short) instruction[0])
				.put((byte) target(instruction[1], i, refuse, unix))
				.put((byte) target(instruction[2], i, refuse, unix))
				.putInt(instruction[3]);
		}
		return bytes.array();
	}

	/** The jump offset of a label or an offset, from the instruction at {@code at}. */
	private static int target(int label, int at, int refuse, int unix) {
		int to = switch (label) {
			case -1 -> refuse;
			case -2 -> unix;
			default -> at + 1 + label;
		};
		if (to <= at || to - at - 1 > 255) {
			throw new IllegalStateException("seccomp jump from " + at + " to " + to);
		}
		return to - at - 1;
	}

	private static int[] statement(int code, int k) {
		return new int[] { code, 0, 0, k };
	}

	private static int[] jump(int code, int k, int whenTrue, int whenFalse) {
		return new int[] { code, whenTrue, whenFalse, k };
	}

	/**
	 * An architecture the filter knows: its audit value and syscall numbers.
	 */
	enum Architecture {

		/** x86_64: socket 41, add_key 248, request_key 249, keyctl 250. */
		X86_64(0xC000003E, 0x40000000, 41, 248, 249, 250),

		/** aarch64: socket 198, add_key 217, request_key 218, keyctl 219. */
		AARCH64(0xC00000B7, 0, 198, 217, 218, 219);

		final int audit;

		/** The first x32 syscall number, 0 where there is no such ABI. */
		final int x32Bit;

		final int socket;

		final int[] keyrings;

		Architecture(int audit, int x32Bit, int socket, int... keyrings) {
			this.audit = audit;
			this.x32Bit = x32Bit;
			this.socket = socket;
			this.keyrings = keyrings;
		}

		static @Nullable Architecture of(String osArch) {
			return switch (osArch) {
				case "amd64", "x86_64" -> X86_64;
				case "aarch64", "arm64" -> AARCH64;
				default -> null;
			};
		}

	}

}
