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

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.core.process.JvmOwner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Ends, at start-up, the cgroups that dead JVMs of this host left, with every process in
 * them: a group is named for its owner JVM by pid and start time.
 *
 * @author mcp-stdio authors
 */
public final class CgroupSweep {

	private static final Log logger = LogFactory.getLog(CgroupSweep.class);

	private final CgroupContainment cgroups;

	/**
	 * Create a sweep of the groups beside this JVM's.
	 * @param cgroups the containment in use
	 */
	public CgroupSweep(CgroupContainment cgroups) {
		this.cgroups = cgroups;
	}

	/**
	 * End the groups that JVMs of this host left behind (their owner is gone): every
	 * process in them (SIGTERM, a bounded wait, then the kill) and the groups themselves.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return how many processes were in them
	 */
	public int sweep(Duration terminateTimeout) {
		Path own = this.cgroups.base();
		if (own == null) {
			return 0;
		}
		int processes = 0;
		List<Path> swept = new ArrayList<>();
		try (DirectoryStream<Path> groups = Files.newDirectoryStream(own, CgroupContainment.GROUP_PREFIX + "*")) {
			for (Path group : groups) {
				JvmOwner owner = ownerOf(group.getFileName().toString());
				if (owner == null || owner.equals(JvmOwner.current()) || owner.isAlive()) {
					continue;
				}
				ServerCgroup whole = new ServerCgroup(group, this.cgroups.hasKill(), null);
				processes += whole.terminate(terminateTimeout).signalled();
				whole.awaitEmptyAndRemove();
				swept.add(group);
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("Could not sweep cgroups under " + own + ": " + ex.getMessage());
		}
		if (processes > 0) {
			logger.warn("Ended " + processes + " processes left in the cgroups of dead JVMs " + swept);
		}
		return processes;
	}

	/** Read {@code mcp-stdio-<pid>-<start>}. */
	static @Nullable JvmOwner ownerOf(String groupName) {
		if (!groupName.startsWith(CgroupContainment.GROUP_PREFIX)) {
			return null;
		}
		String rest = groupName.substring(CgroupContainment.GROUP_PREFIX.length());
		int dash = rest.indexOf('-');
		if (dash < 0) {
			return null;
		}
		return JvmOwner.parse(rest.substring(0, dash) + "@" + rest.substring(dash + 1), JvmOwner.current().host());
	}

}
