/**
 * Reads the small part of YAML that compose.yaml uses, for tests (no YAML parser is installed):
 * nested block mappings by indentation, block lists of scalars, flow lists written as JSON,
 * plain and double-quoted scalars, comments on their own lines. Anything else throws, naming the
 * line, so the file stays within what this reads.
 */
export type YamlValue = string | YamlValue[] | { [key: string]: YamlValue };

export function parseYamlSubset(text: string): YamlValue {
  const lines = text
    .split('\n')
    .map((line, index) => ({ number: index + 1, indent: line.length - line.trimStart().length, text: line.trim() }))
    .filter((line) => line.text !== '' && !line.text.startsWith('#'));
  let position = 0;

  function scalar(raw: string, number: number): YamlValue {
    if (raw.startsWith('[')) return JSON.parse(raw) as YamlValue;
    if (raw.startsWith('"')) return JSON.parse(raw) as string;
    if (/^['{|>&*!]/.test(raw) || / #/.test(raw)) throw new Error(`compose.yaml line ${number}: unsupported YAML "${raw}"`);
    return raw;
  }

  function block(indent: number): YamlValue {
    const first = lines[position]!;
    if (first.text.startsWith('- ')) {
      const list: YamlValue[] = [];
      while (position < lines.length && lines[position]!.indent === indent && lines[position]!.text.startsWith('- ')) {
        const line = lines[position++]!;
        list.push(scalar(line.text.slice(2).trim(), line.number));
      }
      return list;
    }
    const map: { [key: string]: YamlValue } = {};
    while (position < lines.length && lines[position]!.indent === indent) {
      const line = lines[position++]!;
      const match = /^([\w.-]+):(?:\s+(.*))?$/.exec(line.text);
      if (!match) throw new Error(`compose.yaml line ${line.number}: expected "key: value", got "${line.text}"`);
      const [, key, value] = match;
      if (Object.hasOwn(map, key!)) throw new Error(`compose.yaml line ${line.number}: "${key}" given twice`);
      if (value !== undefined) {
        map[key!] = scalar(value, line.number);
      } else if (position < lines.length && lines[position]!.indent > indent) {
        map[key!] = block(lines[position]!.indent);
      } else {
        map[key!] = {};
      }
    }
    if (position < lines.length && lines[position]!.indent > indent) throw new Error(`compose.yaml line ${lines[position]!.number}: unexpected indentation`);
    return map;
  }

  const document = block(0);
  if (position < lines.length) throw new Error(`compose.yaml line ${lines[position]!.number}: unexpected indentation`);
  return document;
}
