import { defaultSttModel } from '../../src/core/catalog/catalog';
import { lifecycleOf } from '../../src/core/catalog/lifecycle';
import { MODELS } from '../../src/core/catalog/models';
import { PLAN_LEVEL } from '../../src/core/catalog/types';

// Each model with an announced shutdown has a live successor before that day: a model of the same category, open
// to the same plans (a Starter user keeps speech-to-text), not shutting down itself by then.

test('every announced shutdown has a live successor of the same category on the same plans or fewer', () => {
  const ending = MODELS.filter((m) => lifecycleOf(m.slug)!.shutdownAt !== null);
  expect(ending.map((m) => m.slug).sort()).toEqual(['gemini-3.1-flash-lite', 'gpt-4o-transcribe']);
  for (const m of ending) {
    const { shutdownAt, replacement } = lifecycleOf(m.slug)!;
    const next = MODELS.find((x) => x.slug === replacement);
    expect([m.slug, next?.category]).toEqual([m.slug, m.category]);
    expect(PLAN_LEVEL[next!.minPlan]).toBeLessThanOrEqual(PLAN_LEVEL[m.minPlan]);
    const nextEnds = lifecycleOf(next!.slug)!.shutdownAt;
    expect(nextEnds === null || nextEnds > shutdownAt!).toBe(true);
  }
});

test('the default speech-to-text model is on Starter and has no shutdown announced', () => {
  const stt = defaultSttModel();
  expect(stt.minPlan).toBe('free');
  expect(lifecycleOf(stt.slug)!.shutdownAt).toBeNull();
});
