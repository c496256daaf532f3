import { Agent, OpenAIResponsesModel, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { getBalance, ledgerTotals } from '../../src/core/billing/ledger';
import type { ProviderName } from '../../src/core/providers/types';
import { GenerationEntity } from '../../src/db/entities';
import { ApiHarness, startApi } from '../api/harness';
import { textModel } from './models';

// The OpenAI Agents SDK, pointed at the service with its own OpenAI client, runs an agent with one tool through
// POST /v1/responses: the model calls the tool, the SDK runs it and sends the result back, the model answers.

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  // Traces would go to OpenAI's own endpoint.
  setTracingDisabled(true);
});
afterAll(() => api.close());

async function account(tokens = 500): Promise<{ openai: OpenAI; userId: number }> {
  const acc = await api.account('vip', { planTokens: tokens, bonusTokens: 0 });
  const openai = new OpenAI({ apiKey: await api.apiKey(acc), baseURL: `${api.baseUrl}/v1`, maxRetries: 0 });
  return { openai, userId: acc.user.id };
}

function weatherAgent(model: string | OpenAIResponsesModel, calls: string[]) {
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `sunny and 24 C in ${city}`;
    },
  });
  return new Agent({ name: 'Weather', instructions: 'Answer weather questions with the tool.', model, tools: [getWeather] });
}

async function expectAnswersBilled(userId: number, before: number, answers: number) {
  const generations = await api.db.dataSource.getRepository(GenerationEntity).find({ where: { userId }, order: { id: 'ASC' } });
  expect(generations.map((g) => g.status)).toEqual(Array<string>(answers).fill('completed'));
  const spent = generations.reduce((n, g) => n + g.tokensSpent, 0);
  const b = await getBalance(api.db.dataSource, userId);
  expect(b.total).toBe(before - spent);
  expect(await ledgerTotals(api.db.dataSource, userId)).toEqual({ plan: b.planTokens, bonus: b.bonusTokens });
}

describe.each(['openai', 'anthropic'] as ProviderName[])('an agent with one tool on a %s model', (provider) => {
  const model = textModel(provider).slug;

  test('run(): the Responses model with a custom client calls the tool and answers with its result', async () => {
    const { openai, userId } = await account();
    const calls: string[] = [];
    const agent = weatherAgent(new OpenAIResponsesModel(openai as never, model), calls);
    const result = await run(agent, 'What is the weather in Paris?');
    expect(calls).toHaveLength(1);
    expect(result.finalOutput).toMatch(/get_weather.*sunny and 24 C/);
    await expectAnswersBilled(userId, 500, 2);
  });
});

test('run({ stream: true }) with setDefaultOpenAIClient and the Responses API by model name, on two vendors', async () => {
  // The SDK's default provider keeps the first client it is given, so one account serves both runs.
  const { openai, userId } = await account();
  setDefaultOpenAIClient(openai as never);
  setOpenAIAPI('responses');
  for (const provider of ['openai', 'anthropic'] as ProviderName[]) {
    const calls: string[] = [];
    const result = await run(weatherAgent(textModel(provider).slug, calls), 'Weather in Oslo?', { stream: true });
    let text = '';
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect([provider, calls.length]).toEqual([provider, 1]);
    expect(result.finalOutput).toMatch(/get_weather.*sunny and 24 C/);
    // The text stream also carries what the model said before calling the tool (Claude does).
    expect(text.endsWith(result.finalOutput as string)).toBe(true);
  }
  await expectAnswersBilled(userId, 500, 4);
});
