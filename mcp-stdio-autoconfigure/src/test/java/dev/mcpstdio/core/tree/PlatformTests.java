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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Platform}.
 *
 * @author mcp-stdio authors
 */
class PlatformTests {

	@Test
	void thisLinuxMachineOffersEveryProtection() {
		Platform platform = Platform.current();
		assertThat(platform.ownSessions()).isTrue();
		assertThat(platform.hasProcFileSystem()).isTrue();
		assertThat(platform.supportsOrphanGuard()).isTrue();
		assertThat(platform.missingProtections()).isEmpty();
	}

	@Test
	void aDistrolessImageIsToldWhatIsOff() {
		Platform distroless = new Platform("Linux", null, true, null);
		assertThat(distroless.supportsOrphanGuard()).isFalse();
		assertThat(distroless.missingProtections()).hasSize(2)
			.anyMatch((line) -> line.startsWith("no setsid"))
			.anyMatch((line) -> line.startsWith("no /bin/sh"));
	}

	@Test
	void stockMacOsHasNoSetsidAndNoProc() {
		Platform mac = new Platform("Mac OS X", null, false, "/bin/sh");
		assertThat(mac.supportsOrphanGuard()).isTrue();
		assertThat(mac.missingProtections()).hasSize(2)
			.anyMatch((line) -> line.startsWith("no setsid"))
			.anyMatch((line) -> line.startsWith("no /proc"));
	}

	@Test
	void windowsIsNotWarnedAbout() {
		Platform windows = new Platform("Windows 11", null, false, null);
		assertThat(windows.isWindows()).isTrue();
		assertThat(windows.supportsOrphanGuard()).isFalse();
		assertThat(windows.missingProtections()).isEmpty();
	}

}
