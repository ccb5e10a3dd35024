import type { Clock } from "../../src/clock.js";

/** A clock tests move by hand, so nothing in a test sleeps to make time pass. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date | string = "2026-01-15T12:00:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }

  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }
}
