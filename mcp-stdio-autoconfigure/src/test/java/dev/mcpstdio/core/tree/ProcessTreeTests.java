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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.junit.jupiter.api.Test;

import static dev.mcpstdio.core.tree.Procs.proc;
import static dev.mcpstdio.core.tree.Procs.table;
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
		ProcessTree tree = tree(true);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, ROOT_START, null),
				proc(4001, ROOT, ROOT, ROOT, 1001, null), proc(4002, 4001, 4002, ROOT, 1002, null),
				proc(4003, 1, 4003, 4003, 1003, null), proc(4004, 4003, 4003, 4003, 1004, null),
				proc(7, 1, 7, 7, 5, null));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(ROOT, 4001L, 4002L);
	}

	@Test
	void aReapedRootsPidReusedByAStrangerGroupIsNeverAMember() {
		// The root was reaped; a stranger took its pid and leads a group and session
		ProcessTree tree = tree(false);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, 5000, null), proc(4100, ROOT, ROOT, ROOT, 5001, null),
				proc(4101, 1, ROOT, ROOT, 5002, null));
		assertThat(tree.members(table)).isEmpty();
	}

	@Test
	void aReapedRootsStrangerIsNeverSignalled() {
		ProcessTree tree = tree(false);
		FakeSource source = new FakeSource(table(proc(ROOT, 1, ROOT, ROOT, 5000, null),
				proc(4100, ROOT, ROOT, ROOT, 5001, null), proc(4101, 1, ROOT, ROOT, 5002, null)));
		TreeTerminator.Result result = new TreeTerminator(source, Duration.ofSeconds(2)).terminate("files", tree,
				Duration.ofMillis(50), "test", System.nanoTime(), (kill) -> {
				});
		assertThat(result.terminated()).isZero();
		assertThat(source.signalled).isEmpty();
	}

	@Test
	void afterTheRootsReapItsGroupAloneProvesNothing() {
		ProcessTree tree = tree(false);
		// 4001 started while the root ran and stayed in its group; 4002 is its child;
		// after the reap either could as well be a stranger's
		ProcessTable table = table(proc(4001, 1, ROOT, 4001, ROOT_START + 10, null),
				proc(4002, 4001, ROOT, 4001, ROOT_START + 20, null));
		assertThat(tree.members(table)).isEmpty();
	}

	@Test
	void afterTheRootsReapItsSessionAloneProvesNothing() {
		ProcessTree tree = tree(false);
		ProcessTable table = table(proc(4001, 1, 4001, ROOT, ROOT_START + 10, null),
				proc(4002, 4001, 4001, ROOT, ROOT_START + 20, null));
		assertThat(tree.members(table)).isEmpty();
	}

	@Test
	void whileTheRootIsUnreapedItsGroupAloneAndItsSessionAloneAreEvidence() {
		ProcessTree tree = tree(true);
		// the root is a zombie (not in the table) but unreaped: its pid, so its group and
		// session, are still its own
		ProcessTable table = table(proc(4001, 1, ROOT, 4001, ROOT_START + 10, null),
				proc(4002, 1, 4002, ROOT, ROOT_START + 20, null), proc(4003, 1, 4003, 4003, ROOT_START + 30, null));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(4001L, 4002L);
	}

	@Test
	void afterTheRootsReapMarkedProcessesAndTheirDescendantsAreMembers() {
		ProcessTree tree = tree(false);
		ProcessMarkers ours = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, INSTANCE, null);
		ProcessTable table = table(proc(4001, 1, ROOT, ROOT, ROOT_START + 10, ours),
				proc(4002, 4001, 4002, 4002, ROOT_START + 20, null), proc(4003, 1, ROOT, ROOT, ROOT_START + 30, null));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(4001L, 4002L);
	}

	@Test
	void incompleteOrForeignMarkersAreNoEvidence() {
		ProcessTree tree = tree(false);
		ProcessMarkers ours = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, INSTANCE, null);
		ProcessMarkers noServer = new ProcessMarkers("", ProcessMarkers.CURRENT_PID, INSTANCE, null);
		ProcessMarkers otherOwner = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID + 1, INSTANCE, null);
		byte[] instanceAlone = (ProcessMarkers.INSTANCE + "=" + INSTANCE + "\0").getBytes(StandardCharsets.UTF_8);
		assertThat(ProcessMarkers.parse(instanceAlone, instanceAlone.length)).isNull();
		ProcessTable table = table(proc(5001, 1, 5001, 5001, 9001, noServer),
				proc(5002, 1, 5002, 5002, 9002, otherOwner),
				new Proc(new ProcessTable.Ids(5003, 1, 5003, 5003), 'S', 9003, 4096, ours, Membership.CURRENT_UID + 1),
				new Proc(new ProcessTable.Ids(5004, 1, 5004, 5004), 'S', 9004, 4096, ours, -1));
		assertThat(tree.members(table)).isEmpty();
	}

	@Test
	void theFirstEntryOfANameCountsAsForGetenv() {
		byte[] environ = (ProcessMarkers.SERVER + "=files\0" + ProcessMarkers.OWNER_PID + "=12\0"
				+ ProcessMarkers.INSTANCE + "=12.5.1\0" + ProcessMarkers.INSTANCE + "=99.5.1\0" + ProcessMarkers.SERVER
				+ "=other\0")
			.getBytes(StandardCharsets.UTF_8);
		ProcessMarkers markers = ProcessMarkers.parse(environ, environ.length);
		assertThat(markers).isNotNull();
		assertThat(markers.server()).isEqualTo("files");
		assertThat(markers.instance()).isEqualTo("12.5.1");
		assertThat(markers.hasOwnInstance()).isTrue();
		assertThat(markers.owner()).isEqualTo(new ProcessMarkers.Owner(12, "5", ProcessMarkers.Owner.current().host()));
	}

	@Test
	void processesCarryingTheInstanceMarkerAreMembersWhereverTheyWent() {
		ProcessTree tree = tree(false);
		ProcessMarkers ours = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID, INSTANCE, null);
		ProcessMarkers otherStart = new ProcessMarkers("files", ProcessMarkers.CURRENT_PID,
				ProcessMarkers.newInstance(), null);
		ProcessTable table = table(proc(5000, 1, 5000, 5000, 9000, ours), proc(5001, 5000, 5000, 5000, 9001, null),
				proc(5002, 1, 5002, 5002, 9002, otherStart));
		assertThat(pids(tree.members(table))).containsExactlyInAnyOrder(5000L, 5001L);
	}

	@Test
	void aChildOlderThanItsParentIsAStrangerWhosePidMatchedByChance() {
		ProcessTree tree = tree(true);
		ProcessTable table = table(proc(ROOT, 1, ROOT, ROOT, ROOT_START, null),
				proc(6000, ROOT, 6000, 6000, 900, null));
		assertThat(pids(tree.members(table))).containsExactly(ROOT);
	}

	@Test
	void aRootWithAnotherStartTimeIsNotTheRoot() {
		ProcessTree tree = tree(true);
		ProcessTable table = table(proc(ROOT, 1, 3, 3, 777, null));
		assertThat(tree.members(table)).isEmpty();
	}

	static ProcessTree tree(boolean rootUnreaped) {
		return new ProcessTree(ROOT, ROOT_START, INSTANCE, true, () -> rootUnreaped, Membership.ofCurrentUser());
	}

	static List<Long> pids(List<Proc> procs) {
		List<Long> pids = new ArrayList<>();
		procs.forEach((proc) -> pids.add(proc.pid()));
		return pids;
	}

	/** A process source that only records signals. */
	static final class FakeSource extends ScanningSource {

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
