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

package dev.mcpstdio.bench.transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToDoubleFunction;

/**
 * Rounds of two sides run back to back, A B then B A, each pair giving one ratio.
 *
 * @author mcp-stdio authors
 */
final class PairedRounds {

	/** The first error of a failed call, by side. */
	private final AtomicReferenceArray<String> firstErrors = new AtomicReferenceArray<>(2);

	private final List<Round[]> pairs = new ArrayList<>();

	/**
	 * Run {@code rounds} pairs of rounds of one caller: side 0 first in even pairs, side
	 * 1 first in odd ones, so that neither always runs on the other's leftovers (its
	 * garbage, its compiler queue, the cores it woke).
	 * @param rounds pairs of rounds
	 * @param calls calls per round and side
	 * @param sides the two sides' call
	 * @return the rounds
	 */
	static PairedRounds sequential(int rounds, int calls, Runnable... sides) {
		PairedRounds paired = new PairedRounds();
		for (int round = 0; round < rounds; round++) {
			Round[] pair = new Round[2];
			for (int turn = 0; turn < 2; turn++) {
				int side = (round + turn) % 2;
				pair[side] = paired.sequentialRound(side, calls, sides[side]);
			}
			paired.pairs.add(pair);
		}
		return paired;
	}

	/**
	 * Run {@code rounds} pairs of rounds in which {@code threads} threads share a side's
	 * client, each making {@code calls} calls; a failed call is counted, not retried.
	 * @param rounds pairs of rounds
	 * @param threads threads per round
	 * @param calls calls per thread
	 * @param sides the two sides' call
	 * @return the rounds
	 * @throws Exception if a round did not end within 5 minutes
	 */
	static PairedRounds parallel(int rounds, int threads, int calls, Runnable... sides) throws Exception {
		PairedRounds paired = new PairedRounds();
		ExecutorService executor = Executors.newFixedThreadPool(threads, Results::daemon);
		try {
			for (int round = 0; round < rounds; round++) {
				Round[] pair = new Round[2];
				for (int turn = 0; turn < 2; turn++) {
					int side = (round + turn) % 2;
					pair[side] = paired.parallelRound(side, executor, threads, calls, sides[side]);
				}
				paired.pairs.add(pair);
			}
		}
		finally {
			executor.shutdownNow();
		}
		return paired;
	}

	private Round sequentialRound(int side, int calls, Runnable call) {
		long[] nanos = new long[calls];
		long failed = 0;
		long begin = System.nanoTime();
		for (int i = 0; i < calls; i++) {
			long start = System.nanoTime();
			try {
				call.run();
			}
			catch (RuntimeException ex) {
				failed++;
				this.firstErrors.compareAndSet(side, null, String.valueOf(ex.getMessage()));
			}
			nanos[i] = System.nanoTime() - start;
		}
		return new Round(nanos, System.nanoTime() - begin, calls, failed);
	}

	private Round parallelRound(int side, ExecutorService executor, int threads, int calls, Runnable call)
			throws Exception {
		AtomicLong failed = new AtomicLong();
		List<Callable<Void>> tasks = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			tasks.add(() -> {
				for (int i = 0; i < calls; i++) {
					try {
						call.run();
					}
					catch (RuntimeException ex) {
						// the SDK's transport refuses concurrent sends: count, go on
						failed.incrementAndGet();
						this.firstErrors.compareAndSet(side, null, String.valueOf(ex.getMessage()));
					}
				}
				return null;
			});
		}
		long begin = System.nanoTime();
		for (Future<Void> future : executor.invokeAll(tasks, 5, TimeUnit.MINUTES)) {
			future.get(1, TimeUnit.SECONDS);
		}
		return new Round(new long[0], System.nanoTime() - begin, (long) threads * calls, failed.get());
	}

	/**
	 * Return every call's latency of one side, all rounds together.
	 * @param side 0 or 1
	 * @return the statistics
	 */
	Stats pooled(int side) {
		return new Stats(this.pairs.stream().map((pair) -> pair[side].nanos()).flatMapToLong(Arrays::stream).toArray());
	}

	/**
	 * Return successful calls per second of one side over all its rounds.
	 * @param side 0 or 1
	 * @return calls per second
	 */
	double pooledRate(int side) {
		long succeeded = 0;
		long nanos = 0;
		for (Round[] pair : this.pairs) {
			succeeded += pair[side].succeeded();
			nanos += pair[side].elapsed();
		}
		return succeeded / (nanos / 1e9);
	}

	/**
	 * Return the failed calls of one side, all rounds together.
	 * @param side 0 or 1
	 * @return the count
	 */
	long failed(int side) {
		return this.pairs.stream().mapToLong((pair) -> pair[side].failed()).sum();
	}

	/**
	 * Return the calls of one side, all rounds together.
	 * @param side 0 or 1
	 * @return the count
	 */
	long calls(int side) {
		return this.pairs.stream().mapToLong((pair) -> pair[side].calls()).sum();
	}

	/**
	 * Return the message of one side's first failed call.
	 * @param side 0 or 1
	 * @return the message, empty when none failed
	 */
	String firstError(int side) {
		String error = this.firstErrors.get(side);
		return (error != null) ? error : "";
	}

	/**
	 * Return the ratios side 0 / side 1 of one figure, one per pair of rounds.
	 * @param figure the figure of a round
	 * @return the ratios
	 */
	Ratios ratios(ToDoubleFunction<Round> figure) {
		double[] ratios = new double[this.pairs.size()];
		for (int i = 0; i < ratios.length; i++) {
			ratios[i] = figure.applyAsDouble(this.pairs.get(i)[0]) / figure.applyAsDouble(this.pairs.get(i)[1]);
		}
		return new Ratios(ratios);
	}

	/**
	 * One side's round: its calls' latencies (none when parallel), wall time and
	 * failures.
	 */
	record Round(long[] nanos, long elapsed, long calls, long failed) {

		double medianMillis() {
			return new Stats(this.nanos).medianMillis();
		}

		double p99Millis() {
			return new Stats(this.nanos).p99Millis();
		}

		long succeeded() {
			return this.calls - this.failed;
		}

		double rate() {
			return succeeded() / (this.elapsed / 1e9);
		}

	}

	/** The ratios of one figure, one per pair: their median and spread. */
	record Ratios(double[] values) {

		double median() {
			return Stats.quantile(this.values, 0.5);
		}

		/**
		 * Return the pairs in which side 0's figure is below side 1's.
		 * @return the count
		 */
		long below() {
			return Arrays.stream(this.values).filter((ratio) -> ratio < 1).count();
		}

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%.3f (quartiles %.3f-%.3f, range %.3f-%.3f, n=%d, below 1 in %d)",
					median(), Stats.quantile(this.values, 0.25), Stats.quantile(this.values, 0.75),
					Stats.quantile(this.values, 0), Stats.quantile(this.values, 1), this.values.length, below());
		}

	}

}
