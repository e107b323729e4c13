// A test process that holds a temporary directory (tempDir) and a file in it, then waits: it prints
// the directory and, with `exit` as argument, leaves at once through process.exit.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers.ts';

const dir = tempDir('sb-holder-');
fs.writeFileSync(path.join(dir, 'data.txt'), 'held');
process.stdout.write(`${dir}\n`);
if (process.argv.includes('exit')) process.exit(0);
setInterval(() => {}, 1000);
