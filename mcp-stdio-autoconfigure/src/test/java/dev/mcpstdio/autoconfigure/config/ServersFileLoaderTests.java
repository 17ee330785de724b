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

package dev.mcpstdio.autoconfigure.config;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.autoconfigure.config.ServersFile.InvalidFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.core.io.AbstractResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ServersFileLoader}: what touches a servers file's source runs within
 * the read's bound, and a file that cannot be read is still watched.
 *
 * @author mcp-stdio authors
 */
class ServersFileLoaderTests {

	private static final byte[] CONTENT = "{\"mcpServers\": {}}".getBytes(StandardCharsets.UTF_8);

	@TempDir
	Path temp;

	@Test
	void everyLookOfTheSourceIsOnTheBoundedThreadNeverTheCallers() {
		// a source's look-up may hang as its read may (a stat on a stuck network file
		// system): where it ran tells whether the bound covers it
		Set<String> threads = ConcurrentHashMap.newKeySet();
		DefaultResourceLoader loader = new DefaultResourceLoader() {

			@Override
			public Resource getResource(String location) {
				threads.add(Thread.currentThread().getName());
				return new RecordingResource(threads);
			}

		};
		List<Path> watched = new ArrayList<>();
		byte[] bytes = ServersFileLoader.load("not-on-disk/servers.json", loader, watched::add);
		assertThat(bytes).isEqualTo(CONTENT);
		assertThat(threads).containsExactly("mcp-stdio-servers-file");
		assertThat(watched).isEmpty();
	}

	@Test
	void aFileThatCannotBeReadIsStillWatchedSoThatItsFixIsSeen() throws IOException {
		Path directory = Files.createDirectory(this.temp.resolve("servers.json"));
		List<Path> watched = new ArrayList<>();
		assertThatExceptionOfType(InvalidFileException.class)
			.isThrownBy(() -> ServersFileLoader.load(directory.toString(), new DefaultResourceLoader(), watched::add))
			.withMessage("cannot be read: it is a directory, not a regular file");
		assertThat(watched).containsExactly(directory.toAbsolutePath());
	}

	@Test
	void aFileReadIsWatched() throws IOException {
		Path file = Files.write(this.temp.resolve("servers.json"), CONTENT);
		List<Path> watched = new ArrayList<>();
		assertThat(ServersFileLoader.load("file:" + file, new DefaultResourceLoader(), watched::add))
			.isEqualTo(CONTENT);
		assertThat(watched).containsExactly(file.toAbsolutePath());
	}

	/** A source not on the file system that records the threads that look at it. */
	private static final class RecordingResource extends AbstractResource {

		private final Set<String> threads;

		RecordingResource(Set<String> threads) {
			this.threads = threads;
		}

		private void looked() {
			this.threads.add(Thread.currentThread().getName());
		}

		@Override
		public boolean exists() {
			looked();
			return true;
		}

		@Override
		public boolean isReadable() {
			looked();
			return true;
		}

		@Override
		public boolean isFile() {
			looked();
			return false;
		}

		@Override
		public File getFile() throws IOException {
			looked();
			throw new FileNotFoundException("not a file");
		}

		@Override
		public InputStream getInputStream() {
			looked();
			return new ByteArrayInputStream(CONTENT);
		}

		@Override
		public String getDescription() {
			return "a recording source";
		}

	}

}
