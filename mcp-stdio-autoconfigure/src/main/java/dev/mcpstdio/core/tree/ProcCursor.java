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

import java.io.FileInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * A cursor over {@code /proc} for one thread: it reads the files of many processes into
 * one buffer, and the fields of a {@code stat} line without making strings of them (a
 * scan reads hundreds), every read bounded in size.
 *
 * @author mcp-stdio authors
 */
final class ProcCursor {

	/** An environment larger than this is not one we started. */
	private static final int MAX_ENVIRON_BYTES = 256 * 1024;

	/**
	 * Fields of {@code stat} after the command name, the state being field 0: up to
	 * {@code env_end}, which kernels before 3.5 do not show.
	 */
	private static final int FIELDS = 49;

	/** Fields every kernel shows: up to the resident set size. */
	private static final int REQUIRED_FIELDS = 22;

	/** Where the file system is mounted, with a trailing slash. */
	private final String prefix;

	private byte[] buffer = new byte[1024];

	private final int[] starts = new int[FIELDS];

	private int length;

	private int fields;

	private char state;

	ProcCursor(String prefix) {
		this.prefix = prefix;
	}

	/**
	 * Read a process's {@code stat}.
	 * @return whether it could be read and had every field
	 */
	boolean readStat(long pid) {
		this.length = read(this.prefix + pid + "/stat", 4096);
		// The command name may hold anything, ')' too: the fields follow the last
		int close = -1;
		for (int i = this.length - 1; i >= 0; i--) {
			if (this.buffer[i] == ')') {
				close = i;
				break;
			}
		}
		if (close < 0 || close + 2 >= this.length) {
			return false;
		}
		int field = 0;
		this.starts[field++] = close + 2;
		for (int i = close + 2; i < this.length && field < FIELDS; i++) {
			if (this.buffer[i] == ' ') {
				this.starts[field++] = i + 1;
			}
		}
		if (field < REQUIRED_FIELDS) {
			return false;
		}
		this.fields = field;
		this.state = (char) this.buffer[close + 2];
		return true;
	}

	/** The fields of the stat line read last. */
	ProcReader.Stat stat(long pid) {
		return new ProcReader.Stat(new ProcessTable.Ids(pid, field(1), field(2), field(3)), this.state, field(6),
				field(19), field(21));
	}

	/**
	 * Return where the environment of the process read last lies in its memory: an exec
	 * moves it.
	 * @return a value that an exec changes, 0 when unknown
	 */
	long environAt() {
		return 31 * field(47) + field(48);
	}

	/**
	 * Return the numeric field {@code index} of the stat line read last.
	 * @return its value, 0 when the line does not have it
	 */
	long field(int index) {
		if (index >= this.fields) {
			return 0;
		}
		long value = 0;
		boolean negative = false;
		for (int i = this.starts[index]; i < this.length; i++) {
			byte b = this.buffer[i];
			if (b == '-') {
				negative = true;
			}
			else if (b >= '0' && b <= '9') {
				value = value * 10 + (b - '0');
			}
			else {
				break;
			}
		}
		return negative ? -value : value;
	}

	/**
	 * Read a process's environment into the buffer.
	 * @return its length, -1 when it could not be read
	 */
	int readEnviron(long pid) {
		return read(this.prefix + pid + "/environ", MAX_ENVIRON_BYTES);
	}

	byte[] buffer() {
		return this.buffer;
	}

	/**
	 * Read a file into the buffer, at most {@code max} bytes.
	 * @return the bytes read, -1 when the file could not be read
	 */
	private int read(String file, int max) {
		try (FileInputStream in = new FileInputStream(file)) {
			int total = 0;
			while (total < max) {
				if (total == this.buffer.length) {
					this.buffer = Arrays.copyOf(this.buffer, Math.min(max, total * 2));
				}
				int read = in.read(this.buffer, total, Math.min(this.buffer.length, max) - total);
				if (read < 0) {
					return total;
				}
				total += read;
			}
			return total;
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

}
