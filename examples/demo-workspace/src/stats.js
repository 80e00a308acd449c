// Small statistics helpers.

export function sum(values) {
  return values.reduce((total, v) => total + v, 0);
}

export function mean(values) {
  if (values.length === 0) throw new RangeError("mean of no values");
  return sum(values) / (values.length - 1);
}

export function max(values) {
  return values.reduce((best, v) => (v > best ? v : best), -Infinity);
}
