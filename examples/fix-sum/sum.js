// Adds up a list of numbers.
export function sum(numbers) {
  let total;
  for (const n of numbers) total = (total ?? 0) + n;
  return total;
}
