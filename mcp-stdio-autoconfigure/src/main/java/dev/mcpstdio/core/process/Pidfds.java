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

package dev.mcpstdio.core.process;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * Linux pidfds through libc by JNA: a signal reaches its process or nobody.
 *
 * @author mcp-stdio authors
 */
final class Pidfds {

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

	private final LibC libc;

	private Pidfds(LibC libc) {
		this.libc = libc;
	}

	/**
	 * Load libc and open a pidfd of this JVM, to learn whether the kernel allows them.
	 * @return the pidfds
	 * @throws LastErrorException when the kernel refuses ({@code ENOSYS} before Linux
	 * 5.3, {@code EPERM} under a seccomp filter)
	 * @throws LinkageError when JNA or its native library cannot load
	 */
	static Pidfds load() {
		Pidfds pidfds = new Pidfds(Native.load(Platform.C_LIBRARY_NAME, LibC.class));
		int fd = pidfds.open(ProcessHandle.current().pid());
		if (fd < 0) {
			throw new LastErrorException(ESRCH);
		}
		pidfds.close(fd);
		return pidfds;
	}

	/**
	 * Open a pidfd of the process that has a pid now.
	 * @param pid the process
	 * @return the pidfd, -1 when no process has that pid
	 * @throws LastErrorException on any other failure (out of descriptors, ...)
	 */
	int open(long pid) {
		try {
			return (int) this.libc.syscall(SYS_PIDFD_OPEN, pid, 0L);
		}
		catch (LastErrorException ex) {
			if (ex.getErrorCode() == ESRCH) {
				return -1;
			}
			throw ex;
		}
	}

	/**
	 * Send SIGTERM or SIGKILL through a pidfd.
	 * @param fd the pidfd
	 * @param kill SIGKILL, else SIGTERM
	 * @return whether it was sent: {@code false} once the process was reaped
	 */
	boolean send(int fd, boolean kill) {
		try {
			return this.libc.syscall(SYS_PIDFD_SEND_SIGNAL, (long) fd, (long) (kill ? SIGKILL : SIGTERM), 0L, 0L) == 0;
		}
		catch (LastErrorException ex) {
			return false;
		}
	}

	/**
	 * Return whether the process of a pidfd has ended: its pidfd reads as ready then, a
	 * zombie's too.
	 * @param fd the pidfd
	 * @return whether it ended
	 */
	boolean exited(int fd) {
		Memory pollfd = new Memory(8);
		pollfd.setInt(0, fd);
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

	void close(int fd) {
		try {
			this.libc.close(fd);
		}
		catch (LastErrorException ex) {
			// EINTR: Linux closed it anyway
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

		private final Pidfds pidfds;

		private final int fd;

		private boolean closed;

		Pidfd(Pidfds pidfds, int fd) {
			this.pidfds = pidfds;
			this.fd = fd;
		}

		/**
		 * Send SIGTERM or SIGKILL to the held process.
		 * @param kill SIGKILL, else SIGTERM
		 * @return whether it was sent: {@code false} once the process was reaped
		 */
		synchronized boolean signal(boolean kill) {
			return !this.closed && this.pidfds.send(this.fd, kill);
		}

		/**
		 * Return whether the held process has ended (a zombie has).
		 * @return whether it ended
		 */
		synchronized boolean exited() {
			return this.closed || this.pidfds.exited(this.fd);
		}

		@Override
		public synchronized void close() {
			if (!this.closed) {
				this.closed = true;
				this.pidfds.close(this.fd);
			}
		}

	}

}
