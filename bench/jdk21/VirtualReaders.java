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

import java.io.*;
import java.lang.management.*;
import java.util.*;
import java.util.concurrent.*;

/**
 * Platform against virtual threads reading the stdout of N `cat` processes (JDK 21+, not
 * built by Maven): `java bench/jdk21/VirtualReaders.java 200 platform|virtual`. Prints
 * platform threads per process (ThreadMXBean, over the baseline) and the round trip.
 */
public class VirtualReaders {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean virtual = args[1].equals("virtual");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int before = mx.getThreadCount();
        mx.resetPeakThreadCount();
        List<Process> processes = new ArrayList<>();
        List<PrintStream> ins = new ArrayList<>();
        List<BlockingQueue<String>> outs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Process p = new ProcessBuilder("cat").start();
            p.onExit();
            processes.add(p);
            ins.add(new PrintStream(p.getOutputStream(), true));
            BlockingQueue<String> q = new ArrayBlockingQueue<>(16);
            outs.add(q);
            Runnable reader = () -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) q.put(l);
                } catch (Exception e) { }
            };
            if (virtual) Thread.ofVirtual().start(reader); else { Thread t = new Thread(reader); t.setDaemon(true); t.start(); }
        }
        Thread.sleep(2000);
        int rest = mx.getThreadCount();
        // round trips on instance 0
        double[] rt = new double[20000];
        for (int w = 0; w < 2; w++)
        for (int i = 0; i < rt.length; i++) {
            long s = System.nanoTime();
            ins.get(i % n).println("x" + i);
            outs.get(i % n).poll(10, TimeUnit.SECONDS);
            rt[i] = (System.nanoTime() - s) / 1e3;
        }
        Arrays.sort(rt);
        System.out.printf("%s n=%d platform threads per process at rest %.2f, peak %.2f, round trip median %.1f us p99 %.1f us%n",
            args[1], n, (rest - before) / (double) n, (mx.getPeakThreadCount() - before) / (double) n, rt[rt.length / 2], rt[rt.length * 99 / 100]);
        for (PrintStream in : ins) in.close();
        for (Process p : processes) p.waitFor(10, TimeUnit.SECONDS);
    }
}
