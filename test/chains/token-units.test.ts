/**
 * The one conversion between a token's units and micro-units is exact: whole micro-units plus a
 * sub-micro remainder that adds back to the token amount, for every decimals a token may have.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { microToUnits, unitsToMicro } from "../../src/chains/token-units.js";

describe("unitsToMicro", () => {
  it("keeps a 6-decimal amount as it is, with no remainder", () => {
    expect(unitsToMicro(12_500_000n, 6)).toEqual({ micro: 12_500_000n, remainder: 0n });
  });

  it("splits 10.0000015 of an 18-decimal token into 10.000001 and the sub-micro part", () => {
    expect(unitsToMicro(10_000_001_500_000_000_000n, 18)).toEqual({
      micro: 10_000_001n,
      remainder: 500_000_000_000n,
    });
  });

  it("credits nothing for an 18-decimal transfer below one micro-unit, and keeps all of it as remainder", () => {
    expect(unitsToMicro(999_999_999_999n, 18)).toEqual({ micro: 0n, remainder: 999_999_999_999n });
  });

  it("scales a token of fewer decimals up", () => {
    expect(unitsToMicro(1_234n, 2)).toEqual({ micro: 12_340_000n, remainder: 0n });
    expect(unitsToMicro(7n, 0)).toEqual({ micro: 7_000_000n, remainder: 0n });
  });

  it("handles amounts far beyond 2^64", () => {
    const units = 2n ** 200n + 123n;
    const { micro, remainder } = unitsToMicro(units, 18);
    expect(micro * 10n ** 12n + remainder).toBe(units);
  });

  it("refuses a negative amount and impossible decimals", () => {
    expect(() => unitsToMicro(-1n, 6)).toThrow(RangeError);
    expect(() => unitsToMicro(1n, -1)).toThrow(RangeError);
    expect(() => unitsToMicro(1n, 6.5)).toThrow(RangeError);
    expect(() => unitsToMicro(1n, 78)).toThrow(RangeError);
  });

  it("never loses a unit: micro and remainder add back to the amount for any decimals", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        fc.integer({ min: 0, max: 36 }),
        (units, d) => {
          const { micro, remainder } = unitsToMicro(units, d);
          expect(remainder).toBeGreaterThanOrEqual(0n);
          if (d >= 6) {
            const scale = 10n ** BigInt(d - 6);
            expect(remainder).toBeLessThan(scale);
            expect(micro * scale + remainder).toBe(units);
          } else {
            expect(remainder).toBe(0n);
            expect(micro).toBe(units * 10n ** BigInt(6 - d));
          }
          expect(microToUnits(micro, d, remainder)).toBe(units);
        },
      ),
    );
  });
});

describe("microToUnits", () => {
  it("gives the token units of a micro-unit amount", () => {
    expect(microToUnits(12_500_000n, 6)).toBe(12_500_000n);
    expect(microToUnits(12_500_000n, 18)).toBe(12_500_000_000_000_000_000n);
    expect(microToUnits(12_340_000n, 2)).toBe(1_234n);
  });

  it("refuses an amount the token cannot hold exactly", () => {
    expect(() => microToUnits(12_345_678n, 2)).toThrow(RangeError);
    expect(() => microToUnits(1n, 18, 10n ** 12n)).toThrow(RangeError);
    expect(() => microToUnits(1_000_000n, 2, 1n)).toThrow(RangeError);
  });
});
