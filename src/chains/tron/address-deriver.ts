/**
 * Derives deposit addresses for the pool off the event loop. Deriving costs about as much CPU as
 * creating the order that takes the address (one secp256k1 point multiplication each), and in one
 * process (role "all", or "api" deriving inline) it competed with every request for the one
 * JavaScript thread: on an empty default pool, creation ran at a third of its rate on a deep pool.
 * A worker thread derives on another core while the event loop serves requests.
 *
 * The worker is started on first use and never keeps the process alive. A thread is a whole
 * JavaScript engine of its own (about 50 MB resident from source, bench/memory-startup.ts --embedded),
 * and after the pool is filled it mostly waits: it is ended once idle for WORKER_IDLE_MS, and the next
 * batch worth a thread starts it again. Where it cannot start or
 * load, derivation falls back to the event loop in small chunks, yielding between them, so requests
 * still interleave; a worker that dies after loading is restarted on the next call.
 */
import { extname } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Branch } from "@stablegate/tron/hd";
import type { DeriveReply, DeriveRequest } from "./derive-worker.js";
import { derivePoolAddresses, type PoolDerivationBackend } from "./pool-derivation.js";

/** Until a batch this large asks for it, derivation stays on the event loop (no thread started). */
export const WORKER_MIN_COUNT = 100;
/** A worker that has had no request for this long is ended. */
export const WORKER_IDLE_MS = 30_000;
/** In-thread derivation yields to the event loop after each chunk. */
const DERIVE_CHUNK = 16;

interface Pending {
  resolve: (addresses: string[]) => void;
  reject: (error: Error) => void;
}

let worker: Worker | null = null;
/** Set once the worker could not start: every later call derives in-thread. */
let unavailable = false;
let nextId = 1;
/** The implementation the worker thread derives with, once it has said (pool-derivation.ts). */
let workerBackend: PoolDerivationBackend | null = null;
const pending = new Map<number, Pending>();
let idleMs = WORKER_IDLE_MS;
let idleTimer: NodeJS.Timeout | null = null;

/** How long an idle worker is kept (default WORKER_IDLE_MS); tests shorten it. */
export function setAddressDeriverIdleMs(ms: number): void {
  idleMs = ms;
}

/** Ends the worker once it has been idle for idleMs (re-armed by every request and reply). */
function armIdleStop(thread: Worker): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (pending.size > 0) return;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker !== thread || pending.size > 0) return;
    worker = null;
    void thread.terminate();
  }, idleMs);
  idleTimer.unref();
}

function failAll(error: Error): void {
  for (const { reject } of pending.values()) reject(error);
  pending.clear();
}

function startWorker(): Worker | null {
  if (unavailable) return null;
  if (worker) return worker;
  const here = fileURLToPath(import.meta.url);
  const entry = new URL(`./derive-worker${extname(here)}`, import.meta.url);
  let started: Worker;
  try {
    // Compiled (dist/): the .js sibling. From source (tsx, the test runner): a thread inherits no
    // TypeScript loader, so it registers tsx's before importing the .ts sibling.
    started =
      extname(here) === ".ts"
        ? new Worker(
            `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`,
            { eval: true },
          )
        : new Worker(entry);
  } catch {
    unavailable = true;
    return null;
  }
  started.unref();
  let ready = false;
  started.on("message", (reply: DeriveReply) => {
    if ("ready" in reply) {
      ready = true;
      workerBackend = reply.backend;
      return;
    }
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.addresses);
    armIdleStop(started);
  });
  started.on("error", (error) => {
    // A worker that never loaded cannot load here: stop trying. One that died after loading is
    // restarted on the next call.
    if (!ready) unavailable = true;
    // A thread ended for idleness may report after its successor started: leave the successor alone.
    if (worker !== started) return;
    worker = null;
    failAll(error);
  });
  started.on("exit", () => {
    if (!ready) unavailable = true;
    if (worker !== started) return;
    worker = null;
    failAll(new Error("address derivation worker exited"));
  });
  worker = started;
  return started;
}

async function deriveInThread(xpub: string, from: number, count: number, branch: Branch): Promise<string[]> {
  const out: string[] = [];
  for (let done = 0; done < count; done += DERIVE_CHUNK) {
    if (done > 0) await yieldToEventLoop();
    out.push(...derivePoolAddresses(xpub, from + done, Math.min(DERIVE_CHUNK, count - done), branch));
  }
  return out;
}

/** Whether derivation runs on the worker thread (false until the first call, or where it cannot). */
export function derivesOffThread(): boolean {
  return worker !== null && !unavailable;
}

/** Which implementation the worker thread derives with (null before it has loaded). */
export function workerDerivationBackend(): PoolDerivationBackend | null {
  return worker !== null && !unavailable ? workerBackend : null;
}

/**
 * The addresses of indexes from .. from + count - 1 of `branch`, equal to deriveAddresses() (through
 * derivePoolAddresses: libsecp256k1 where it loads), derived
 * on the worker thread when it runs, on the event loop in yielding chunks otherwise.
 */
export async function deriveAddressesOffThread(
  xpub: string,
  from: number,
  count: number,
  branch: Branch = 0,
): Promise<string[]> {
  // A thread costs more to start than a few dozen derivations: the first batch worth it starts it.
  const thread = worker ?? (count >= WORKER_MIN_COUNT ? startWorker() : null);
  if (!thread) return deriveInThread(xpub, from, count, branch);
  const id = nextId++;
  try {
    return await new Promise<string[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      armIdleStop(thread);
      thread.postMessage({ id, xpub, from, count, branch } satisfies DeriveRequest);
    });
  } catch (error) {
    // The worker could not load or died: the same derivation on the event loop. An invalid xpub
    // fails the same way there and is thrown as it would have been.
    if (unavailable || worker === null) return deriveInThread(xpub, from, count, branch);
    throw error;
  }
}

/**
 * Ends the worker thread (a service's shutdown). Under tsx its loader keeps a process alive even
 * though the worker is unreferenced, so whoever started derivation from source stops it too.
 */
export async function stopAddressDeriver(): Promise<void> {
  const running = worker;
  worker = null;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (running) await running.terminate();
}
