/**
 * What the tests look for on disk.
 *
 * @module
 */

/** The files (not directories) below `dir`, none if there is no `dir`. */
export function filesUnder(dir: string): string[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return entries.flatMap((entry) =>
    entry.isDirectory
      ? filesUnder(`${dir}/${entry.name}`)
      : [`${dir}/${entry.name}`]
  );
}
