import { useCallback, useEffect, useState } from 'react';
import { useApp } from '../../app-context';
import { describeError } from '../../lib/describe-error';

/** Loads with `load` (again when `deps` change or on `reload()`); an error is described in the user's language. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const { t } = useApp();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => {
        if (!live) return;
        setError(null);
        setData(d);
      },
      (err: unknown) => live && setError(describeError(err, t)),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what the load depends on
  }, [...deps, tick, t]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, reload };
}

/** Runs a console action: its notice on success (then `after`), the error described in the user's language on failure. */
export function useAction(after: () => void = () => undefined) {
  const { t } = useApp();
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const run = useCallback(
    async <T>(action: () => Promise<T>, done: (result: T) => string | null = () => null): Promise<boolean> => {
      setNotice(null);
      setFailure(null);
      try {
        const result = await action();
        setNotice(done(result));
        after();
        return true;
      } catch (err) {
        setFailure(describeError(err, t));
        return false;
      }
    },
    [after, t],
  );
  return { notice, failure, run };
}
