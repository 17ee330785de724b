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

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.mcpstdio.autoconfigure.config.ServersFile.InvalidFileException;
import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ResourceUtils;

/**
 * The loader of a servers file's bytes: a regular file of at most
 * {@link ServersFile#MAX_SIZE}, read within {@link ServersFile#READ_TIMEOUT}.
 *
 * @author mcp-stdio authors
 */
final class ServersFileLoader {

	private ServersFileLoader() {
	}

	/**
	 * Load the bytes of a servers file. Everything that touches its source, from finding
	 * out whether a plain path exists to the read, runs on a thread of its own, so that a
	 * source that is stuck (a network file system, a URL that never answers) costs
	 * start-up {@link ServersFile#READ_TIMEOUT}, not forever. That thread is a daemon,
	 * interrupted at the timeout; a read that ignores interrupts ends when its source
	 * does.
	 * @param location the file's location, as {@link ServersFile#read} takes it
	 * @param resourceLoader the application's resource loader
	 * @param watch takes where the file is when it is one on the file system, on the
	 * calling thread, also when it cannot be read: a fix of it is then seen
	 * @return its bytes
	 * @throws InvalidFileException when it cannot be read
	 */
	static byte[] load(String location, ResourceLoader resourceLoader, Consumer<Path> watch) {
		AtomicReference<@Nullable Path> file = new AtomicReference<>();
		FutureTask<byte[]> task = new FutureTask<>(() -> {
			Resource resource = resource(location, resourceLoader);
			file.set(path(resource));
			return loadNow(resource);
		});
		Threads.daemon(task, "mcp-stdio-servers-file").start();
		try {
			return task.get(ServersFile.READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			task.cancel(true);
			throw InvalidFileException.unreadable("it could not be read within " + ServersFile.READ_TIMEOUT.toSeconds()
					+ "s (a stuck source: a network file system or a URL that does not answer)");
		}
		catch (InterruptedException ex) {
			task.cancel(true);
			Thread.currentThread().interrupt();
			throw InvalidFileException.unreadable("start-up was interrupted while it was read");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof InvalidFileException invalid) {
				throw invalid;
			}
			throw InvalidFileException
				.unreadable("reading it failed (" + ex.getCause().getClass().getSimpleName() + ")");
		}
		finally {
			Path path = file.get();
			if (path != null) {
				watch.accept(path);
			}
		}
	}

	private static Resource resource(String location, ResourceLoader resourceLoader) {
		FileSystemResource file = new FileSystemResource(location);
		boolean plain = !location.startsWith(ResourceLoader.CLASSPATH_URL_PREFIX) && !ResourceUtils.isUrl(location);
		return (plain && file.exists()) ? file : resourceLoader.getResource(location);
	}

	private static @Nullable Path path(Resource resource) {
		try {
			return resource.isFile() ? resource.getFile().toPath().toAbsolutePath() : null;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	private static byte[] loadNow(Resource resource) throws IOException {
		if (resource.isFile()) {
			checkRegularFile(resource.getFile().toPath());
		}
		else if (!resource.exists()) {
			throw InvalidFileException.missing();
		}
		else if (!resource.isReadable()) {
			throw InvalidFileException.unreadable("");
		}
		try (InputStream in = resource.getInputStream()) {
			byte[] bytes = in.readNBytes(ServersFile.MAX_SIZE + 1);
			if (bytes.length > ServersFile.MAX_SIZE) {
				throw InvalidFileException.unusable(null,
						"it is larger than 4 MB (" + ServersFile.MAX_SIZE + " bytes)");
			}
			return bytes;
		}
	}

	/**
	 * Refuse what is not a regular file before it is opened: opening a FIFO for reading
	 * blocks until something writes to it. The attributes come from {@code stat}, which
	 * follows a symbolic link (a mounted configuration often is one) but opens nothing.
	 */
	private static void checkRegularFile(Path path) throws IOException {
		BasicFileAttributes attributes;
		try {
			attributes = Files.readAttributes(path, BasicFileAttributes.class);
		}
		catch (NoSuchFileException ex) {
			throw InvalidFileException.missing();
		}
		if (!attributes.isRegularFile()) {
			throw InvalidFileException.unreadable(
					"it is " + (attributes.isDirectory() ? "a directory" : special(path)) + ", not a regular file");
		}
	}

	private static String special(Path path) {
		try {
			int type = ((Integer) Files.getAttribute(path, "unix:mode")) & 0170000;
			return switch (type) {
				case 0010000 -> "a FIFO (named pipe)";
				case 0020000 -> "a character device";
				case 0060000 -> "a block device";
				case 0140000 -> "a socket";
				default -> "a special file";
			};
		}
		catch (IOException | RuntimeException ex) {
			// no unix view of the attributes on this platform
			return "a special file";
		}
	}

}
