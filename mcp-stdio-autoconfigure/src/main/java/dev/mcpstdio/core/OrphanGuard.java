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

package dev.mcpstdio.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Makes sure that no server outlives this JVM, however it dies (SIGKILL and
 * {@code Runtime.halt} included): one small {@code sh} watcher per JVM, started on the
 * first server start, learns each server's process group through its stdin. When that
 * stdin reaches its end, the JVM is gone; the watcher then waits up to the largest
 * {@code stdin-close-timeout} for the servers to exit by themselves, sends SIGTERM to
 * every known group and every process marked with this JVM's pid, waits up to the largest
 * {@code terminate-timeout}, sends SIGKILL to what is left, and exits.
 * <p>
 * While the JVM lives the watcher is blocked in a read and costs nothing but its memory.
 * It is never closed by the JVM: on a normal shutdown the servers stop first and the
 * watcher, seeing its stdin end when the JVM exits, finds nothing left to end. It runs in
 * its own session (and ignores SIGINT, SIGHUP, SIGTERM and SIGQUIT), so a Ctrl-C in the
 * terminal or a signal to the JVM's process group does not take it down before it has
 * done its work. It carries no markers, so it is never counted as a server process.
 *
 * @author mcp-stdio authors
 */
public final class OrphanGuard {

	/** Whether the guard can run here: a POSIX shell on Linux or macOS. */
	public static final boolean SUPPORTED = isSupported();

	private static final Log logger = LogFactory.getLog(OrphanGuard.class);

	/**
	 * The watcher. Lines: {@code S <id> g|p <stdinCloseMillis> <terminateMillis>} for a
	 * server started as process group (g) or plain pid (p), {@code E <id>} when it ended.
	 * Times come from {@code /proc/uptime} where it exists, else from counting sleeps.
	 */
	static final String SCRIPT = """
			trap '' INT HUP TERM QUIT PIPE
			owner=$1; groups=' '; pids=' '; grace=0; term=0
			while IFS=' ' read -r op id kind a b; do
			  case "$op" in
			    S) if [ "$kind" = g ]; then groups="$groups$id "; else pids="$pids$id "; fi
			       [ "$a" -gt "$grace" ] && grace=$a
			       [ "$b" -gt "$term" ] && term=$b ;;
			    E) case "$groups" in *" $id "*) groups="${groups%% $id *} ${groups#* $id }" ;; esac
			       case "$pids" in *" $id "*) pids="${pids%% $id *} ${pids#* $id }" ;; esac ;;
			  esac
			done
			ms=0
			now() {
			  if [ -r /proc/uptime ]; then read u r < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); fi
			}
			marked() {
			  [ -d /proc/self ] || return 0
			  for f in $(grep -l -s -z -x "MCP_STDIO_OWNER_PID=$owner" /proc/[0-9]*/environ 2>/dev/null); do
			    p=${f#/proc/}; p=${p%/environ}; [ "$p" = "$$" ] || echo "$p"
			  done
			}
			alive() {
			  left=
			  for g in $groups; do kill -0 -"$g" 2>/dev/null && left="$left -$g"; done
			  for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
			  for p in $(marked); do left="$left $p"; done
			}
			signal() {
			  for t in $left; do kill -"$1" "$t" 2>/dev/null; done
			}
			await() {
			  now; until=$((ms + $1))
			  while :; do
			    alive; [ -z "$left" ] && return 0
			    [ -n "$2" ] && signal "$2"
			    now; [ "$ms" -ge "$until" ] && return 1
			    sleep 0.05; [ -r /proc/uptime ] || ms=$((ms + 50))
			  done
			}
			await "$grace" && exit 0
			signal TERM
			await "$term" && exit 0
			signal KILL
			await 1000 KILL
			exit 0
			""";

	private static volatile boolean enabled = SUPPORTED
			&& !"false".equalsIgnoreCase(System.getProperty("mcp.stdio.orphan-guard.enabled"));

	private static final Object lock = new Object();

	/** The servers the watcher knows, by id, with their start lines. */
	private static final Map<Long, String> known = new LinkedHashMap<>();

	private static @Nullable Process watcher;

	private static @Nullable OutputStream watcherInput;

	private OrphanGuard() {
	}

	/**
	 * Turn the guard on or off for the servers started from now on. It is on by default
	 * where supported; the system property {@code mcp.stdio.orphan-guard.enabled=false}
	 * turns the default off.
	 * @param on whether to guard
	 */
	public static void setEnabled(boolean on) {
		enabled = on && SUPPORTED;
	}

	/**
	 * Return whether servers started from now on are guarded.
	 * @return whether the guard is on
	 */
	public static boolean isEnabled() {
		return enabled;
	}

	/**
	 * Return the pid of the watcher, once it runs.
	 * @return the pid or {@code null}
	 */
	public static @Nullable Long watcherPid() {
		synchronized (lock) {
			Process current = watcher;
			return (current != null && current.isAlive()) ? current.pid() : null;
		}
	}

	/**
	 * Tell the watcher about a server that has just started.
	 * @param pid the server's root pid
	 * @param ownGroup whether the root leads its own process group
	 * @param timeouts the server's shutdown bounds
	 */
	static void started(long pid, boolean ownGroup, ShutdownTimeouts timeouts) {
		if (!enabled) {
			return;
		}
		String line = "S " + pid + " " + (ownGroup ? "g" : "p") + " " + timeouts.stdinClose().toMillis() + " "
				+ timeouts.terminate().toMillis() + "\n";
		synchronized (lock) {
			known.put(pid, line);
			if (watcher == null) {
				// a new watcher learns every known server, this one included
				startWatcher();
			}
			else {
				write(line);
			}
		}
	}

	/**
	 * Tell the watcher that a server's root process has ended and its pid may be reused.
	 * @param pid the server's root pid
	 */
	static void ended(long pid) {
		synchronized (lock) {
			if (known.remove(pid) != null) {
				write("E " + pid + "\n");
			}
		}
	}

	private static void write(String line) {
		Process current = watcher;
		OutputStream input = watcherInput;
		if (current == null || input == null) {
			return;
		}
		try {
			input.write(line.getBytes(StandardCharsets.US_ASCII));
			input.flush();
		}
		catch (IOException ex) {
			// Someone killed the watcher: start another that learns every server still
			// known
			logger.warn("The MCP server orphan guard (pid " + current.pid() + ") is gone (" + ex.getMessage()
					+ "); starting a new one");
			watcher = null;
			watcherInput = null;
			if (enabled) {
				startWatcher();
			}
		}
	}

	private static void startWatcher() {
		List<String> command = new ArrayList<>();
		String setsid = StdioServerProcess.SETSID;
		if (setsid != null) {
			command.add(setsid);
		}
		command.addAll(
				List.of("/bin/sh", "-c", SCRIPT, "mcp-stdio-orphan-guard", Long.toString(ProcessMarkers.CURRENT_PID)));
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
			enabled = false;
			return;
		}
		OutputStream input = process.getOutputStream();
		watcher = process;
		watcherInput = input;
		logger.debug("Started the MCP server orphan guard (pid " + process.pid() + ")");
		try {
			for (String line : known.values()) {
				input.write(line.getBytes(StandardCharsets.US_ASCII));
			}
			input.flush();
		}
		catch (IOException ex) {
			logger.warn("The MCP server orphan guard (pid " + process.pid() + ") ended at once (" + ex.getMessage()
					+ "); servers may outlive a killed JVM");
			watcher = null;
			watcherInput = null;
		}
	}

	/**
	 * Return the largest time the guard needs after the JVM died to end every server.
	 * @param timeouts the servers' shutdown bounds
	 * @return {@code stdin-close-timeout + terminate-timeout + 1s}
	 */
	public static Duration bound(ShutdownTimeouts timeouts) {
		return timeouts.stdinClose().plus(timeouts.terminate()).plusSeconds(1);
	}

	private static boolean isSupported() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		return (os.contains("linux") || os.contains("mac")) && Files.isExecutable(Path.of("/bin/sh"));
	}

}
