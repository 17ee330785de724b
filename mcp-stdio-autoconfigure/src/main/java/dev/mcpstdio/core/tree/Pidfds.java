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

package dev.mcpstdio.core.tree;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import org.jspecify.annotations.Nullable;

/**
 * Linux pidfds through libc by JNA: a signal reaches its process or nobody.
 *
 * @param libc the C library
 * @author mcp-stdio authors
 */
record Pidfds(LibC libc) {

	// The only class that touches JNA. A pidfd refers to one process, never to a later
	// one that reuses its pid.

	/** {@code pidfd_open}: the same number on every architecture (generic table). */
	private static final long SYS_PIDFD_OPEN = 434;

	/** {@code pidfd_send_signal}. */
	private static final long SYS_PIDFD_SEND_SIGNAL = 424;

	private static final int ESRCH = 3;

	private static final short POLLIN = 0x1;

	private static final int SIGKILL = 9;

	private static final int SIGTERM = 15;

	/**
	 * Load libc and open a pidfd of this JVM, to learn whether the kernel allows them.
	 * @return the pidfds
	 * @throws LastErrorException when the kernel refuses ({@code ENOSYS} before Linux
	 * 5.3, {@code EPERM} under a seccomp filter)
	 * @throws LinkageError when JNA or its native library cannot load
	 */
	static Pidfds load() {
		Pidfds pidfds = new Pidfds(Native.load(Platform.C_LIBRARY_NAME, LibC.class));
		try (Pidfd own = pidfds.open(ProcessHandle.current().pid())) {
			if (own == null) {
				throw new LastErrorException(ESRCH);
			}
		}
		return pidfds;
	}

	/**
	 * Open a pidfd of the process that has a pid now.
	 * @param pid the process
	 * @return the pidfd, {@code null} when no process has that pid
	 * @throws LastErrorException on any other failure (out of descriptors, ...)
	 */
	@Nullable Pidfd open(long pid) {
		try {
			int fd = (int) this.libc.syscall(SYS_PIDFD_OPEN, pid, 0L);
			return (fd >= 0) ? new Pidfd(this.libc, fd) : null;
		}
		catch (LastErrorException ex) {
			if (ex.getErrorCode() == ESRCH) {
				return null;
			}
			throw ex;
		}
	}

	/** The three calls of libc that pidfds need, each setting errno. */
	interface LibC extends Library {

		long syscall(long number, Object... args) throws LastErrorException;

		int poll(Pointer fds, int count, int timeout) throws LastErrorException;

		int close(int fd) throws LastErrorException;

	}

	/** One process held by its pidfd: a signal reaches it or nobody, never a stranger. */
	static final class Pidfd implements AutoCloseable {

		private final LibC libc;

		private final int fd;

		private boolean closed;

		private Pidfd(LibC libc, int fd) {
			this.libc = libc;
			this.fd = fd;
		}

		/**
		 * Send SIGTERM or SIGKILL to the held process.
		 * @param kill SIGKILL, else SIGTERM
		 * @return whether it was sent: {@code false} once the process was reaped
		 */
		synchronized boolean signal(boolean kill) {
			try {
				return !this.closed && this.libc.syscall(SYS_PIDFD_SEND_SIGNAL, (long) this.fd,
						(long) (kill ? SIGKILL : SIGTERM), 0L, 0L) == 0;
			}
			catch (LastErrorException ex) {
				return false;
			}
		}

		/**
		 * Return whether the held process has ended: its pidfd reads as ready then, a
		 * zombie's too.
		 * @return whether it ended
		 */
		synchronized boolean exited() {
			if (this.closed) {
				return true;
			}
			Memory pollfd = new Memory(8);
			pollfd.setInt(0, this.fd);
			pollfd.setShort(4, POLLIN);
			pollfd.setShort(6, (short) 0);
			try {
				return this.libc.poll(pollfd, 1, 0) > 0 && (pollfd.getShort(6) & POLLIN) != 0;
			}
			catch (LastErrorException ex) {
				// EINTR, or a descriptor that is no pidfd: ask again next time
				return false;
			}
		}

		@Override
		public synchronized void close() {
			if (!this.closed) {
				this.closed = true;
				try {
					this.libc.close(this.fd);
				}
				catch (LastErrorException ex) {
					// EINTR: Linux closed it anyway
				}
			}
		}

	}

}
