// The terminal's size, following resizes; or a fixed one (tests).
import { useCallback, useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface Size {
  columns: number;
  rows: number;
}

export function useTerminalSize(fixed: Size | undefined): Size {
  const { stdout } = useStdout();
  const read = useCallback((): Size => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed, read]);
  return fixed ?? size;
}
