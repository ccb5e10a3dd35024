// Loaded with `--import` into a process that bench/memory-startup.ts --embedded measures: answers the
// IPC message "sample" with the process's memory split into parts, after a full garbage collection.
// Plain JavaScript, so it loads into any checkout (the same-run baseline too) without a loader.
import { readFileSync } from "node:fs";
import process from "node:process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

// Every WebAssembly heap the process creates (PGlite's), held weakly so that measuring keeps none alive.
const memories = [];
const wasm = globalThis.WebAssembly;
const NativeMemory = wasm.Memory;
wasm.Memory = class extends NativeMemory {
  constructor(descriptor) {
    super(descriptor);
    memories.push(new WeakRef(this));
  }
};

/** Resident bytes of the mappings that back the live WebAssembly heaps (/proc/self/smaps). */
function wasmResident(sizes) {
  let resident = 0;
  let size = -1;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) {
      size = parseInt(range[2], 16) - parseInt(range[1], 16);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    // A heap is mapped at its exact size, or inside a guard-region reservation of 8 GiB and more.
    if (rss && (sizes.has(size) || size >= 8 * 2 ** 30)) resident += Number(rss[1]) * 1024;
  }
  return resident;
}

function sample() {
  gc();
  const usage = process.memoryUsage();
  const live = memories.map((ref) => ref.deref()).filter((memory) => memory !== undefined);
  const wasmCommitted = live.reduce((sum, memory) => sum + memory.buffer.byteLength, 0);
  return {
    rss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    wasmHeaps: live.length,
    wasmCommitted,
    wasmResident: wasmResident(new Set(live.map((memory) => memory.buffer.byteLength))),
  };
}

process.on("message", (message) => {
  if (message === "sample") process.send?.(sample());
});
process.channel?.unref();
