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

import dev.mcpstdio.core.containment.SeccompFilter.Architecture;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SeccompFilter}: its program, run by a small classic-BPF interpreter
 * over the {@code seccomp_data} of a syscall, for both architectures (aarch64's cannot be
 * loaded here; the sandbox tests load x86_64's into the kernel).
 *
 * @author mcp-stdio authors
 */
class SeccompFilterTests {

	private static final int ALLOW = 0x7fff0000;

	private static final int EACCES = 0x00050000 | 13;

	private static final int ENOSYS = 0x00050000 | 38;

	@Test
	void x86_64RefusesUnixSocketsKeyringsIoUringForeignAndX32Syscalls() {
		byte[] program = new SeccompFilter(Architecture.X86_64).program(true);
		int arch = 0xC000003E;
		assertThat(run(program, arch, 41, 1)).as("socket(AF_UNIX)").isEqualTo(EACCES);
		assertThat(run(program, arch, 41, 2)).as("socket(AF_INET)").isEqualTo(ALLOW);
		assertThat(run(program, arch, 53, 1)).as("socketpair(AF_UNIX)").isEqualTo(ALLOW);
		assertThat(run(program, arch, 250, 0)).as("keyctl").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 248, 0)).as("add_key").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 249, 0)).as("request_key").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 425, 0)).as("io_uring_setup").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 0x40000000 + 41, 1)).as("x32 socket").isEqualTo(ENOSYS);
		assertThat(run(program, 0x40000003, 359, 1)).as("i386 socket").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 59, 0)).as("execve").isEqualTo(ALLOW);
		byte[] host = new SeccompFilter(Architecture.X86_64).program(false);
		assertThat(run(host, arch, 41, 1)).as("socket(AF_UNIX), network host").isEqualTo(ALLOW);
		assertThat(run(host, arch, 250, 0)).as("keyctl, network host").isEqualTo(ENOSYS);
	}

	@Test
	void aarch64RefusesTheSameByItsOwnNumbers() {
		byte[] program = new SeccompFilter(Architecture.AARCH64).program(true);
		int arch = 0xC00000B7;
		assertThat(run(program, arch, 198, 1)).as("socket(AF_UNIX)").isEqualTo(EACCES);
		assertThat(run(program, arch, 198, 10)).as("socket(AF_INET6)").isEqualTo(ALLOW);
		assertThat(run(program, arch, 199, 1)).as("socketpair(AF_UNIX)").isEqualTo(ALLOW);
		assertThat(run(program, arch, 219, 0)).as("keyctl").isEqualTo(ENOSYS);
		assertThat(run(program, arch, 426, 0)).as("io_uring_enter").isEqualTo(ENOSYS);
		assertThat(run(program, 0x40000028, 281, 1)).as("arm (32-bit) socket").isEqualTo(ENOSYS);
		// 0x40000000 and above is not a separate ABI there: only the arch decides
		assertThat(run(program, arch, 41, 1)).as("x86_64's socket number").isEqualTo(ALLOW);
	}

	@Test
	void theArchitectureIsThatOfOsArch() {
		assertThat(Architecture.of("amd64")).isEqualTo(Architecture.X86_64);
		assertThat(Architecture.of("aarch64")).isEqualTo(Architecture.AARCH64);
		assertThat(Architecture.of("riscv64")).isNull();
	}

	/** Run a classic BPF program over seccomp_data {nr, arch, ip, args[0]}. */
	private static int run(byte[] program, int arch, int nr, long arg0) {
		ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
		data.putInt(0, nr).putInt(4, arch).putLong(16, arg0);
		ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.nativeOrder());
		int accumulator = 0;
		int pc = 0;
		for (int steps = 0; steps < 1000; steps++) {
			int at = pc * 8;
			int op = code.getShort(at) & 0xffff;
			int jt = code.get(at + 2) & 0xff;
			int jf = code.get(at + 3) & 0xff;
			int k = code.getInt(at + 4);
			pc++;
			switch (op) {
				case 0x20 -> accumulator = data.getInt(k);
				case 0x15 -> pc += (accumulator == k) ? jt : jf;
				case 0x35 -> pc += (Integer.compareUnsigned(accumulator, k) >= 0) ? jt : jf;
				case 0x06 -> {
					return k;
				}
				default -> throw new IllegalStateException("unknown instruction " + op);
			}
		}
		throw new IllegalStateException("no return");
	}

}
