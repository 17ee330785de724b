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

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Takes snapshots of the live processes and signals only what a snapshot saw.
 *
 * @author mcp-stdio authors
 */
public final class ProcessScanner implements ProcessSource {

	// Snapshots (read by a SnapshotReader) are shared among callers that ask at the
	// same time.

	/** The longest a snapshot is reused by {@link #recent()}. */
	private static final long MAX_AGE_NANOS = 100_000_000L;

	/**
	 * The longest a caller waits for a read another caller is making before it reads
	 * itself: a read of {@code /proc} can hang on a process stuck in the kernel.
	 */
	private static final long MAX_SHARED_WAIT_NANOS = 2_000_000_000L;

	/** Reads the snapshots. */
	private final SnapshotReader reader;

	/** How signals reach a process, only while it is the process read. */
	private final ProcessSignals signals;

	private final Object flight = new Object();

	/** The newest snapshot; guarded by {@link #flight} for writes. */
	private volatile @Nullable ProcessTable latest;

	/** Whether a shared read is under way; guarded by {@link #flight}. */
	private boolean scanning;

	private volatile long generation;

	/**
	 * Create a scanner that signals through pidfds where the kernel has them.
	 * @param platform what the OS offers
	 * @param proc the reader of {@code /proc}, used where the platform has it
	 */
	public ProcessScanner(Platform platform, ProcReader proc) {
		this(platform, proc, true);
	}

	/**
	 * Create a scanner.
	 * @param platform what the OS offers
	 * @param proc the reader of {@code /proc}, used where the platform has it
	 * @param pidfds whether to hold processes by pidfd where the kernel has them:
	 * {@code false} forces the way without them, for tests
	 */
	ProcessScanner(Platform platform, ProcReader proc, boolean pidfds) {
		this(new SnapshotReader(platform, proc, Math.max(0, ProcessMarkers.CURRENT_START)),
				ProcessSignals.of(platform, proc, pidfds));
	}

	private ProcessScanner(SnapshotReader reader, ProcessSignals signals) {
		this.reader = reader;
		this.signals = signals;
	}

	/**
	 * Return a scanner of the same machine whose snapshots have the markers of every
	 * process, whenever it started: the leftovers of earlier JVMs too, for the start-up
	 * sweep.
	 * @return a scanner that shares no snapshot with this one
	 */
	public ProcessScanner everyProcess() {
		return new ProcessScanner(this.reader.withHorizon(0), this.signals);
	}

	/**
	 * Return a snapshot no older than a few milliseconds and taken after the last
	 * {@link #invalidate()}.
	 * @return a snapshot
	 */
	public ProcessTable recent() {
		ProcessTable table = this.latest;
		if (table != null && table.generation() == this.generation
				&& System.nanoTime() - table.takenAt() < MAX_AGE_NANOS) {
			return table;
		}
		return scan();
	}

	/** Forget the shared snapshot: a process of ours has just ended or started. */
	public void invalidate() {
		this.generation++;
	}

	/**
	 * Return a snapshot whose reading began after this call: the caller's own, or one
	 * that another caller began meanwhile and that serves both.
	 * @return a fresh snapshot
	 */
	public ProcessTable scan() {
		return scan(System.nanoTime());
	}

	/**
	 * Return a snapshot whose reading began at or after {@code freshSince}: one under way
	 * or taken already, else a new one.
	 * @param freshSince a {@link System#nanoTime()} not later than now
	 * @return a snapshot fresh enough
	 */
	@Override
	public ProcessTable scan(long freshSince) {
		long asked = System.nanoTime();
		boolean shared = false;
		boolean interrupted = false;
		synchronized (this.flight) {
			while (true) {
				ProcessTable table = this.latest;
				if (table != null && table.takenAt() - freshSince >= 0) {
					return table;
				}
				if (!this.scanning) {
					this.scanning = true;
					shared = true;
					break;
				}
				// A read is under way: wait for it to end, then take it or share the next
				long left = MAX_SHARED_WAIT_NANOS - (System.nanoTime() - asked);
				if (left <= 0 || interrupted) {
					break;
				}
				try {
					this.flight.wait(Math.max(1, left / 1_000_000L));
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		ProcessTable table = null;
		try {
			table = this.reader.read(this.generation);
			return table;
		}
		finally {
			published(table, shared);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Keep a snapshot read if it is the newest, and wake the callers that wait. */
	private void published(@Nullable ProcessTable table, boolean shared) {
		synchronized (this.flight) {
			if (shared) {
				this.scanning = false;
			}
			ProcessTable newest = this.latest;
			if (table != null && (newest == null || table.takenAt() - newest.takenAt() > 0)) {
				this.latest = table;
			}
			this.flight.notifyAll();
		}
	}

	/**
	 * Read the environments that read empty in a snapshot again, as after an exec.
	 * @param table the snapshot
	 * @return the snapshot with those processes read again
	 */
	@Override
	public ProcessTable reread(ProcessTable table) {
		return this.reader.reread(table);
	}

	/**
	 * Read one process and its ancestors afresh: {@code stat}, markers and user, nothing
	 * from a cache, whenever they started.
	 * @param pid the process
	 * @return the process and its parent chain, empty when it is gone or a zombie
	 */
	@Override
	public ProcessTable lineage(long pid) {
		return this.reader.lineage(pid, this.generation);
	}

	@Override
	public Pidfds.@Nullable Pidfd hold(long pid) {
		return this.signals.hold(pid);
	}

	@Override
	public boolean signal(Proc proc, boolean kill) {
		return this.signals.signal(proc, kill);
	}

	/**
	 * Return when a live process started: clock ticks since boot from {@code /proc}, else
	 * epoch milliseconds.
	 * @param pid the process
	 * @return its start time, 0 when unknown, -1 when it is gone or a zombie
	 */
	public long startTimeOf(long pid) {
		return this.signals.startTimeOf(pid);
	}

}
