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

package dev.mcpstdio.core.guard;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.process.Platform;
import dev.mcpstdio.core.process.ProcessMarkers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Makes sure that no server outlives this JVM, however it dies (SIGKILL and
 * {@code Runtime.halt} included): one small {@code sh} watcher per JVM, started on the
 * first server start, learns each server's root (pid and start time) through its stdin.
 * When that stdin reaches its end, the JVM is gone; the watcher then waits up to the
 * largest {@code stdin-close-timeout} for the servers to exit by themselves, sends
 * SIGTERM to what is left, waits up to the largest {@code terminate-timeout}, sends
 * SIGKILL, and exits, each phase ending at a deadline counted from the JVM's death.
 * <p>
 * Why this class is longer than the others: about 80 of its lines are the watcher's
 * {@code sh} script, which reads best next to the Java that starts it and feeds it.
 * <p>
 * What the watcher signals is only what it can prove is a server's: a process carrying
 * the instance marker of this JVM (which names it by pid and start time, so a later JVM
 * that reuses the pid is not taken for it), a root that still has the start time it was
 * announced with, and a member of a root's process group or session that is either
 * younger than a live root or started between the root's start and the JVM's death.
 * Zombies count as gone. Without {@code /proc} (macOS) the watcher can only check that a
 * pid or group exists.
 * <p>
 * While the JVM lives the watcher is blocked in a read and costs nothing but its memory.
 * It runs in its own session and ignores SIGINT, SIGHUP, SIGTERM and SIGQUIT, so a Ctrl-C
 * in the terminal does not take it down before it has done its work; one that is killed
 * anyway is noticed and replaced, and learns every server still running. Lines reach it
 * through a bounded queue and a thread of its own, so a watcher that stops reading never
 * blocks the JVM. It carries no markers, so it is never counted as a server process.
 *
 * @author mcp-stdio authors
 */
public final class OrphanGuard {

	private static final Log logger = LogFactory.getLog(OrphanGuard.class);

	/**
	 * The watcher. Arguments: the owner's pid and start time. Lines:
	 * {@code S <pid> g|p <startTime> <stdinCloseMillis> <terminateMillis>} for a server
	 * started as process group leader (g) or plain process (p), {@code E <pid>} when it
	 * ended, {@code R <script>} for a script to run once the JVM is gone (as
	 * {@code sh <script> <stdinCloseMillis> <terminateMillis>}, in the background, then
	 * deleted with the cidfiles beside it and the directory) that ends what the process
	 * scan cannot: containers, cgroups. Times come from {@code /proc/uptime} where it
	 * exists, else from counting sleeps.
	 */
	static final String SCRIPT = """
			trap '' INT HUP TERM QUIT PIPE
			opid=$1; ostart=$2; groups=' '; pids=' '; grace=0; term=0; reapers=
			drop() { r=' '; for e in $1; do [ "${e%%:*}" = "$2" ] || r="$r$e "; done; }
			while IFS=' ' read -r op id kind st a b; do
			  case "$op" in
			    S) if [ "$kind" = g ]; then groups="$groups$id:$st "; else pids="$pids$id:$st "; fi
			       [ "$a" -gt "$grace" ] && grace=$a
			       [ "$b" -gt "$term" ] && term=$b ;;
			    E) drop "$groups" "$id"; groups=$r; drop "$pids" "$id"; pids=$r ;;
			    R) reapers="$reapers $id" ;;
			  esac
			done
			for r in $reapers; do
			  [ -f "$r" ] && { sh "$r" "$grace" "$term"; d=${r%/*}; rm -f "$r" "$d"/mcp-stdio-*/cid; rmdir "$d"/mcp-stdio-*/ "$d"; } >/dev/null 2>&1 &
			done
			finish() { wait; exit 0; }
			ms=0; tick=0
			now() {
			  if [ -r /proc/uptime ]; then
			    read -r u rest < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); tick=$((ms / 10))
			  fi
			}
			stat_of() {
			  read -r line < "/proc/$1/stat" 2>/dev/null || return 1
			  set -- ${line##*) }; zs=$1; st=${20}
			}
			now; eof=$((tick + 1)); t0=$ms
			alive() {
			  left=
			  if [ ! -d /proc/self ]; then
			    for e in $groups; do kill -0 -"${e%%:*}" 2>/dev/null && left="$left -${e%%:*}:0"; done
			    for e in $pids; do kill -0 "${e%%:*}" 2>/dev/null && left="$left ${e%%:*}:0"; done
			    return
			  fi
			  live=' '
			  for e in $groups; do stat_of "${e%%:*}" && [ "$st" = "${e#*:}" ] && live="$live${e%%:*} "; done
			  for f in /proc/[0-9]*/stat; do
			    read -r line < "$f" 2>/dev/null || continue
			    set -- ${line##*) }
			    [ "$1" = Z ] && continue
			    p=${f#/proc/}; p=${p%/stat}; pg=$3; sid=$4; ps=${20}
			    for e in $groups; do
			      g=${e%%:*}
			      [ "$pg" = "$g" ] || [ "$sid" = "$g" ] || continue
			      case "$live" in *" $g "*) left="$left $p:$ps"; break ;; esac
			      if [ "$ps" -ge "${e#*:}" ] && [ "$ps" -le "$eof" ]; then left="$left $p:$ps"; break; fi
			    done
			  done
			  for e in $pids; do
			    stat_of "${e%%:*}" && [ "$st" = "${e#*:}" ] && [ "$zs" != Z ] && left="$left $e"
			  done
			  for f in $(grep -l -s -z -x "MCP_STDIO_INSTANCE=$opid[.]$ostart[.][0-9]*" /proc/[0-9]*/environ 2>/dev/null); do
			    p=${f#/proc/}; p=${p%/environ}
			    [ "$p" != "$$" ] && stat_of "$p" && [ "$zs" != Z ] && left="$left $p:$st"
			  done
			}
			signal() {
			  for e in $left; do
			    p=${e%%:*}
			    if [ "${e#*:}" = 0 ]; then kill -"$1" "$p" 2>/dev/null
			    elif stat_of "$p" && [ "$st" = "${e#*:}" ]; then kill -"$1" "$p" 2>/dev/null
			    fi
			  done
			}
			await() {
			  while :; do
			    alive
			    # a process caught in exec shows no markers: only two empty looks in a row count
			    if [ -z "$left" ]; then sleep 0.1; alive; [ -z "$left" ] && return 0; fi
			    [ -n "$2" ] && signal "$2"
			    now; [ "$ms" -ge "$1" ] && return 1
			    sleep 0.1; [ -r /proc/uptime ] || ms=$((ms + 100))
			  done
			}
			await $((t0 + grace)) && finish
			signal TERM
			await $((t0 + grace + term)) && finish
			signal KILL
			await $((t0 + grace + term + 1000)) KILL
			finish
			""";

	/** How many lines may wait for the watcher before new ones are dropped. */
	private static final int QUEUE_CAPACITY = 4096;

	private static volatile @Nullable OrphanGuard shared;

	private final Platform platform;

	private volatile boolean enabled;

	private final Object lock = new Object();

	/** The servers the watcher must know, by pid, with their start lines. */
	private final Map<Long, String> known = new LinkedHashMap<>();

	/** The scripts the watcher runs once the JVM is gone, as their lines. */
	private final Set<String> reapers = new LinkedHashSet<>();

	private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(QUEUE_CAPACITY);

	private @Nullable Process watcher;

	private @Nullable OutputStream input;

	private @Nullable Thread writer;

	private boolean overflowReported;

	OrphanGuard(Platform platform) {
		this.platform = platform;
		this.enabled = platform.supportsOrphanGuard()
				&& !"false".equalsIgnoreCase(System.getProperty("mcp.stdio.orphan-guard.enabled"));
	}

	/**
	 * Return the guard of this JVM.
	 * @return the guard
	 */
	public static OrphanGuard shared() {
		OrphanGuard guard = shared;
		if (guard == null) {
			synchronized (OrphanGuard.class) {
				guard = shared;
				if (guard == null) {
					guard = new OrphanGuard(Platform.current());
					shared = guard;
				}
			}
		}
		return guard;
	}

	/**
	 * Turn the guard on or off for the servers started from now on. It is on by default
	 * where supported; the system property {@code mcp.stdio.orphan-guard.enabled=false}
	 * turns the default off.
	 * @param on whether to guard
	 */
	public void setEnabled(boolean on) {
		this.enabled = on && this.platform.supportsOrphanGuard();
	}

	/**
	 * Return whether servers started from now on are guarded.
	 * @return whether the guard is on
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Return the pid of the watcher, once it runs.
	 * @return the pid or {@code null}
	 */
	public @Nullable Long watcherPid() {
		synchronized (this.lock) {
			Process current = this.watcher;
			return (current != null && current.isAlive()) ? current.pid() : null;
		}
	}

	/**
	 * Tell the watcher about a server that has just started.
	 * @param pid the server's root pid
	 * @param startTime the root's start time, 0 when unknown
	 * @param ownGroup whether the root leads its own process group
	 * @param timeouts the server's shutdown bounds
	 */
	public void started(long pid, long startTime, boolean ownGroup, ShutdownTimeouts timeouts) {
		if (!this.enabled) {
			return;
		}
		String line = "S " + pid + " " + (ownGroup ? "g" : "p") + " " + startTime + " "
				+ timeouts.stdinClose().toMillis() + " " + timeouts.terminate().toMillis() + "\n";
		synchronized (this.lock) {
			this.known.put(pid, line);
			if (this.writer == null) {
				Thread thread = new Thread(this::writeLines, "mcp-stdio-orphan-guard");
				thread.setDaemon(true);
				this.writer = thread;
				thread.start();
			}
			if (this.watcher == null || !this.watcher.isAlive()) {
				// Guarded before the start returns: a new watcher learns every server,
				// this one included
				this.lines.clear();
				this.input = startWatcher();
			}
			else {
				offer(line);
			}
		}
	}

	/**
	 * Tell the watcher about a script to run once this JVM is gone, for what its process
	 * scan cannot end (containers, cgroups): {@code sh <script> <stdinCloseMillis>
	 * <terminateMillis>}, with the largest bounds of the servers, in the background. The
	 * watcher deletes it after it ran. A script may be rewritten in place at any time.
	 * @param script the script, in a directory of this user's only
	 */
	void reaper(Path script) {
		String path = script.toAbsolutePath().toString();
		if (!this.enabled) {
			return;
		}
		if (path.chars().anyMatch(Character::isWhitespace)) {
			logger.warn("The MCP server orphan guard cannot run " + path
					+ " (its path has white space): containers and cgroups of a killed JVM are left to the next "
					+ "start-up's sweep");
			return;
		}
		String line = "R " + path + "\n";
		synchronized (this.lock) {
			if (this.reapers.add(line) && this.watcher != null && this.watcher.isAlive()) {
				offer(line);
			}
		}
	}

	/**
	 * Tell the watcher that a server's root process has ended and its pid may be reused.
	 * @param pid the server's root pid
	 */
	public void ended(long pid) {
		synchronized (this.lock) {
			if (this.known.remove(pid) != null) {
				offer("E " + pid + "\n");
			}
		}
	}

	private void offer(String line) {
		if (!this.lines.offer(line) && !this.overflowReported) {
			this.overflowReported = true;
			logger.warn("The MCP server orphan guard does not keep up (" + QUEUE_CAPACITY
					+ " lines waiting); servers started from now on may outlive a killed JVM");
		}
	}

	/**
	 * Hand the queued lines to the watcher, starting it (again) when it is not running: a
	 * new watcher first learns every server still known.
	 */
	private void writeLines() {
		while (true) {
			String line;
			try {
				line = this.lines.poll(1, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				return;
			}
			OutputStream current;
			synchronized (this.lock) {
				if (this.watcher != null && !this.watcher.isAlive()) {
					logger.warn("The MCP server orphan guard (pid " + this.watcher.pid()
							+ ") is gone; starting a new one that learns the " + this.known.size()
							+ " running servers");
					this.watcher = null;
					this.input = null;
					if (!this.known.isEmpty() && this.enabled) {
						// it learns every server still known, so this line is not needed
						this.input = startWatcher();
						continue;
					}
				}
				current = this.input;
			}
			if (line != null && !line.isEmpty() && current != null) {
				try {
					current.write(line.getBytes(StandardCharsets.US_ASCII));
					current.flush();
				}
				catch (IOException ex) {
					// The watcher died: the next round starts another that learns every
					// server still known, this one's included
				}
			}
		}
	}

	/**
	 * Start a watcher and write it every known server. Called with the lock held.
	 * @return its stdin, or {@code null} when it could not start
	 */
	private @Nullable OutputStream startWatcher() {
		List<String> command = new ArrayList<>();
		if (this.platform.ownSessions()) {
			command.add(this.platform.setsid());
		}
		command.addAll(List.of(this.platform.shell(), "-c", SCRIPT, "mcp-stdio-orphan-guard",
				Long.toString(ProcessMarkers.CURRENT_PID), Long.toString(ProcessMarkers.CURRENT_START)));
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().clear();
		builder.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
		builder.environment().put("LC_ALL", "C");
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			logger.warn("Could not start the MCP server orphan guard; servers may outlive a killed JVM: "
					+ ex.getMessage());
			this.enabled = false;
			return null;
		}
		this.watcher = process;
		// A watcher killed by someone is replaced at once, not at the next server start
		process.onExit().thenRun(() -> this.lines.offer(""));
		logger.debug("Started the MCP server orphan guard (pid " + process.pid() + ")");
		OutputStream input = process.getOutputStream();
		try {
			StringBuilder all = new StringBuilder();
			this.reapers.forEach(all::append);
			this.known.values().forEach(all::append);
			input.write(all.toString().getBytes(StandardCharsets.US_ASCII));
			input.flush();
		}
		catch (IOException ex) {
			logger.warn(
					"The MCP server orphan guard (pid " + process.pid() + ") ended at once (" + ex.getMessage() + ")");
		}
		return input;
	}

	/**
	 * Return the largest time the guard needs after the JVM died to end every server.
	 * @param timeouts the servers' shutdown bounds
	 * @return {@code stdin-close-timeout + terminate-timeout + 1s}
	 */
	public static Duration bound(ShutdownTimeouts timeouts) {
		return timeouts.stdinClose().plus(timeouts.terminate()).plusSeconds(1);
	}

}
