import { defaultVisionModel } from '../../src/core/accounts/chat-preference';
import { canUseModel } from '../../src/core/catalog/catalog';
import { PLAN_SLUGS } from '../../src/core/catalog/types';

test('every plan has a default vision model that sees images and that the plan may use', () => {
  for (const plan of PLAN_SLUGS) {
    const model = defaultVisionModel(plan);
    expect({ plan, vision: model.config.supports_vision, usable: canUseModel(plan, model) }).toEqual({ plan, vision: true, usable: true });
  }
  // The inexpensive all-rounder on Starter, the flagship vision model once the plan opens it.
  expect(defaultVisionModel('free').slug).toBe('gpt-6-luna');
  expect(defaultVisionModel('basic').slug).toBe('gpt-6.1-sol');
});
