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

package dev.mcpstdio.autoconfigure.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The watch of the servers files: what each looked like (size, time, file key), and
 * whether a change settled. Not thread-safe: its owner calls it under its lock.
 *
 * @author mcp-stdio authors
 */
final class FileWatch {

	/**
	 * What each watched file looked like, by file (its keys are the files watched): a
	 * change is applied once two looks agree.
	 */
	private final Map<Path, String> seen = new LinkedHashMap<>();

	private final Map<Path, String> changed = new LinkedHashMap<>();

	/**
	 * Watch files from how they are now: a write from now on is a change.
	 * @param files the files
	 */
	FileWatch(Set<Path> files) {
		files.forEach((file) -> this.seen.put(file, stamp(file)));
	}

	/**
	 * Read the files again and watch those it read, each from how it looked before the
	 * read: a write during the read is seen as a change.
	 * @param <T> what the read returns
	 * @param read the read
	 * @param files the files of what the read returns
	 * @return what the read returned
	 */
	<T> T rewatch(Supplier<T> read, Function<T, Set<Path>> files) {
		Map<Path, String> before = new LinkedHashMap<>();
		this.seen.keySet().forEach((file) -> before.put(file, stamp(file)));
		T result = read.get();
		this.seen.clear();
		this.changed.clear();
		files.apply(result)
			.forEach((file) -> this.seen.put(file, before.containsKey(file) ? before.get(file) : stamp(file)));
		return result;
	}

	/**
	 * Look at the files once.
	 * @return whether a change settled: two looks in a row agree after a change, and no
	 * other file is changing, so that an editor's several writes apply once
	 */
	boolean look() {
		boolean settled = false;
		boolean pending = false;
		// a put of a file already there changes no key: the iteration goes on
		for (Path file : this.seen.keySet()) {
			String now = stamp(file);
			String before = this.seen.put(file, now);
			if (before != null && !before.equals(now)) {
				this.changed.put(file, now);
				pending = true;
			}
			else if (this.changed.remove(file) != null) {
				settled = true;
			}
		}
		return settled && !pending;
	}

	private static String stamp(Path file) {
		try {
			BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
			return attributes.size() + "/" + attributes.lastModifiedTime().toMillis() + "/" + attributes.fileKey();
		}
		catch (IOException ex) {
			return "absent";
		}
	}

}
