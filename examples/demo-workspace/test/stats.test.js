import { test } from "node:test";
import assert from "node:assert/strict";
import { max, mean, sum } from "../src/stats.js";

test("sum adds the values", () => assert.equal(sum([1, 2, 3]), 6));
test("mean is the average", () => assert.equal(mean([2, 4, 6]), 4));
test("max finds the largest", () => assert.equal(max([3, 9, 4]), 9));
