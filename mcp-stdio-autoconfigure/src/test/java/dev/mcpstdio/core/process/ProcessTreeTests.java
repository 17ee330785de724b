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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.mcpstdio.core.process.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ProcessTree} over fake process tables: what counts as a member, and
 * above all what does not once the root's pid may belong to a stranger.
 *
 * @author mcp-stdio authors
 */
class ProcessTreeTests {

	private static final long ROOT = 4000;

	private static final long ROOT_START = 1000;

	private static final String INSTANCE = ProcessMarkers.newInstance();

	@Test
	void whileTheRootLivesItsGroupSessionAndDescendantsAreMembers() {
		ProcessTree tree = tree(true, 0);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, ROOT_START, null),
				proc(4001, ROOT, ROOT, ROOT, 1001, null), proc(4002, 4001, 4002, ROOT, 1002, null),
				proc(4003, 1, 4003, 4003, 1003, null), proc(4004, 4003, 4003, 4003, 1004, null),
				proc(7, 1, 7, 7, 5, null));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(ROOT, 4001L, 4002L);
	}

	@Test
	void aReapedRootsPidReusedByAStrangerGroupIsNeverAMember() {
		// The root ended at tick 2000; a stranger took its pid later and leads a group
		ProcessTree tree = tree(false, 2000);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, 5000, null), proc(4100, ROOT, ROOT, ROOT, 5001, null),
				proc(4101, 1, ROOT, ROOT, 5002, null));
		assertThat(tree.members(table)).isEmpty();
	}

	@Test
	void aReapedRootsStrangerIsNeverSignalled() {
		ProcessTree tree = tree(false, 2000);
		FakeSource source = new FakeSource(table(proc(ROOT, 1, ROOT, ROOT, 5000, null),
				proc(4100, ROOT, ROOT, ROOT, 5001, null), proc(4101, 1, ROOT, ROOT, 5002, null)));
		TreeTerminator.Result result = new TreeTerminator(source).terminate("files", tree,
				java.time.Duration.ofMillis(50), "test", System.nanoTime(), (kill) -> {
				});
		assertThat(result.terminated()).isZero();
		assertThat(source.signalled).isEmpty();
	}

	@Test
	void afterTheRootWasReapedGroupMembersOlderThanItsEndAreStillMembers() {
		ProcessTree tree = tree(false, 2000);
		ProcessTable table = table(proc(4001, 1, ROOT, ROOT, 1500, null), proc(4002, 4001, ROOT, ROOT, 2500, null),
				proc(4003, 1, ROOT, ROOT, 2600, null));
		// 4001 was the server's; 4002 is its child (so ours, though younger than the
		// end); 4003 joined a group of the pid later and is nobody's child of ours
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(4001L, 4002L);
	}

	@Test
	void processesCarryingTheInstanceMarkerAreMembersWhereverTheyWent() {
		ProcessTree tree = tree(false, 2000);
		ProcessMarkers ours = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, INSTANCE);
		ProcessMarkers otherStart = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID,
				ProcessMarkers.newInstance());
		ProcessTable table = table(proc(5000, 1, 5000, 5000, 9000, ours), proc(5001, 5000, 5000, 5000, 9001, null),
				proc(5002, 1, 5002, 5002, 9002, otherStart));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(5000L, 5001L);
	}

	@Test
	void aChildOlderThanItsParentIsAStrangerWhosePidMatchedByChance() {
		ProcessTree tree = tree(true, 0);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, ROOT_START, null),
				proc(6000, ROOT, 6000, 6000, 900, null));
		assertThat(pids(tree.members(table))).containsExactly(ROOT);
	}

	@Test
	void aRootWithAnotherStartTimeIsNotTheRoot() {
		ProcessTree tree = tree(true, 0);
		ProcessTable table = table(proc(ROOT, 1, 3, 3, 777, null));
		assertThat(tree.members(table)).isEmpty();
	}

	static ProcessTree tree(boolean rootUnreaped, long endTime) {
		return new ProcessTree(ROOT, ROOT_START, INSTANCE, true, () -> rootUnreaped, () -> endTime);
	}

	static Proc proc(long pid, long ppid, long pgid, long sid, long start, @Nullable ProcessMarkers markers) {
		return new Proc(pid, ppid, pgid, sid, 'S', start, 4096, markers);
	}

	static ProcessTable table(Proc... procs) {
		return ProcessTable.of(Arrays.asList(procs));
	}

	static List<Long> pids(List<Proc> procs) {
		List<Long> pids = new ArrayList<>();
		procs.forEach((proc) -> pids.add(proc.pid()));
		return pids;
	}

	/** A process source that only records signals. */
	static final class FakeSource implements ProcessSource {

		final List<String> signalled = new ArrayList<>();

		private ProcessTable table;

		FakeSource(ProcessTable table) {
			this.table = table;
		}

		void set(ProcessTable table) {
			this.table = table;
		}

		@Override
		public ProcessTable scan() {
			return this.table;
		}

		@Override
		public boolean signal(Proc proc, boolean kill) {
			this.signalled.add((kill ? "KILL " : "TERM ") + proc.pid());
			return true;
		}

	}

}
