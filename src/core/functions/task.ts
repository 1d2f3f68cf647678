/**
 * The functions task (docs/functions.md: the DQN code-generation project and the Q-language RL
 * system) as the one training loop sees it (task.ts): an item is a problem (docstring and test
 * cases), its prompt the signature, the docstring's words and the shown tests; the policy
 * writes the function body under the typed grammar (grammar.ts); the sandbox runs it on every
 * test (harness.ts) and the reward is the configured one (rewards.ts).
 *
 * Training rewards count every test of a training problem, shown and hidden: hidden tests are
 * kept from the prompt, not from the reward. Evaluation (evaluate.ts) chooses programs with the
 * shown tests only and scores them on all.
 */
import type { FunctionsConfig } from './config';
import type { SampledSequence } from '../model/sampler';
import type { PolicyConfig } from '../model/transformer';
import { numberInputs } from '../model/numberInputs';
import type { SandboxOutcome } from '../sandbox/outcome';
import type { Scored, Task, TaskContext } from '../task';
import { FunctionGrammar } from './grammar';
import { testJob, testsPassed } from './harness';
import {
  ARROW, BOS, DOC, OUT, SEP, TEST, VALUE0, VALUE_MAX, VALUE_MIN, docstringTokens, typeToken, valuePromptTokens, vocabSize,
} from './language';
import type { FunctionProblem, TestCase } from './problems';
import { parameterNames, printFunction, type PrintedProgram } from './program';
import { functionReward, type RewardParts } from './rewards';

export interface FunctionScored extends Scored {
  program: PrintedProgram | null;
  passed: boolean[];
  parts: RewardParts;
  tokens: number;
}

/** Prompt tokens: `BOS param-types ARROW return-type DOC words (TEST args OUT value)* SEP`, cut to `maxLength`. */
export function encodeProblemPrompt(problem: FunctionProblem, maxTests: number, maxLength: number): number[] {
  const head = [BOS, ...problem.signature.params.map(typeToken), ARROW, typeToken(problem.signature.ret), DOC];
  const doc = docstringTokens(problem.docstring, 32, problem.parameters);
  const tests = problem.tests.slice(0, maxTests).map((test) => [TEST, ...test.args.flatMap(valuePromptTokens), OUT, ...valuePromptTokens(test.expected)]);
  // Tests first (they say most), then as much of the docstring as still fits.
  let prompt: number[] = [];
  for (let shown = tests.length; shown >= 0; shown--) {
    const body = tests.slice(0, shown).flat();
    const room = maxLength - head.length - body.length - 1;
    if (room < 0) continue;
    prompt = [...head, ...doc.slice(0, Math.max(0, room)), ...body, SEP];
    break;
  }
  if (prompt.length === 0) throw new Error(`problem ${problem.functionName}: its signature does not fit a prompt of ${maxLength} tokens`);
  return prompt;
}

/** The policy of the functions task: its vocabulary, and value tokens with the number code. */
export function functionsPolicyConfig(config: FunctionsConfig): PolicyConfig {
  return { vocabSize, ...numberInputs(config.model, { first: VALUE0, count: VALUE_MAX - VALUE_MIN + 1 }) };
}

/** Most prompt tokens: what the context leaves after the longest program. */
export function promptBudget(config: FunctionsConfig): number {
  return config.model.context - config.model.maxProgramTokens;
}

export interface Judged {
  program: PrintedProgram | null;
  outcome: SandboxOutcome;
  passed: boolean[];
}

/**
 * Prints each complete sample as a function and runs it on `tests(problem)` in the sandbox.
 * A sample cut off by the token budget passes nothing.
 */
export async function judgeSamples(
  problems: readonly FunctionProblem[],
  samples: readonly SampledSequence[],
  tests: (problem: FunctionProblem) => readonly TestCase[],
  context: TaskContext,
): Promise<Judged[]> {
  const programs = samples.map((sample, i) => {
    if (!sample.complete) return null;
    const problem = problems[i];
    return printFunction(sample.tokens, problem.signature, problem.functionName, parameterNames(problem.signature.params.length, problem.parameters));
  });
  const jobs = programs.flatMap((program, i) => (program ? [testJob(program.text, problems[i].functionName, tests(problems[i]), context.seed)] : []));
  const outcomes = jobs.length ? await context.pool.evaluateBatch(jobs) : [];
  let next = 0;
  return programs.map((program, i) => {
    if (!program) return { program, outcome: { kind: 'output_invalid', message: 'program incomplete: token budget exhausted', elapsedMs: 0 }, passed: tests(problems[i]).map(() => false) };
    const outcome = outcomes[next++];
    return { program, outcome, passed: testsPassed(outcome, tests(problems[i])) };
  });
}

export const allTests = (problem: FunctionProblem): TestCase[] => [...problem.tests, ...problem.hiddenTests];

/**
 * Every test of each program (the shown ones, then the hidden ones), judged so that a hidden test
 * never decides a shown one: a sandbox job fails whole (a time or memory limit reached on a hidden
 * test fails every test of it), so a program whose job failed runs its shown tests again alone,
 * and those results are its shown ones. Its hidden ones stay the whole job's, so whether it solves
 * the problem is judged as training's reward judges it: every test in one job, within one deadline.
 */
export async function judgeShownApart(problems: readonly FunctionProblem[], samples: readonly SampledSequence[], context: TaskContext): Promise<Judged[]> {
  const judged = await judgeSamples(problems, samples, allTests, context);
  const failedWhole = judged.flatMap((j, i) => (j.program && j.outcome.kind !== 'ok' && problems[i].hiddenTests.length ? [i] : []));
  if (!failedWhole.length) return judged;
  const shown = await judgeSamples(failedWhole.map((i) => problems[i]), failedWhole.map((i) => samples[i]), (problem) => problem.tests, context);
  failedWhole.forEach((i, n) => {
    judged[i] = { ...judged[i], passed: [...shown[n].passed, ...judged[i].passed.slice(problems[i].tests.length)] };
  });
  return judged;
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

export function functionsTask(config: FunctionsConfig): Task<FunctionProblem, FunctionScored> {
  const grammar = new FunctionGrammar(config.model.maxProgramTokens);
  const settings = config.functions;
  const maxPrompt = promptBudget(config);
  const curriculum = settings.rewardType === 'curriculum';

  return {
    vocab: { name: 'functions', size: vocabSize },
    grammar,
    grammarSpec: { task: 'functions', budget: config.model.maxProgramTokens },
    policyConfig: () => functionsPolicyConfig(config),
    // The curriculum orders problems by difficulty (a generated problem's program size; the
    // number of tests otherwise), so the loop's pool can start with the easiest.
    trainingItems: (problems) => (curriculum ? [...problems].sort((a, b) => difficulty(a) - difficulty(b)) : [...problems]),
    prompt: (problem) => encodeProblemPrompt(problem, settings.promptTests, maxPrompt),
    ...(curriculum ? { curriculum: (count: number) => ({ start: Math.max(1, Math.round(count * settings.curriculumStart)), widenAt: settings.curriculumWiden, step: Math.max(1, Math.round(count / 10)) }) } : {}),

    async score(problems, samples, context) {
      const judged = await judgeSamples(problems, samples, allTests, context);
      return judged.map(({ program, outcome, passed }, i) => {
        const parts = functionReward(settings.rewardType, { program, tokens: samples[i].tokens.length, maxTokens: config.model.maxProgramTokens, passed }, settings);
        return {
          text: program?.text ?? '',
          outcome: program ? outcome.kind : 'incomplete',
          reward: parts.total,
          correct: passed.length > 0 && passed.every(Boolean),
          program,
          passed,
          parts,
          tokens: samples[i].tokens.length,
        };
      });
    },

    metrics(_problems, scored) {
      return {
        tests_passed: mean(scored.map((s) => s.passed.filter(Boolean).length / Math.max(1, s.passed.length))),
        'reward/correctness': mean(scored.map((s) => s.parts.correctness)),
        'reward/quality': mean(scored.map((s) => s.parts.quality)),
        'reward/efficiency': mean(scored.map((s) => s.parts.efficiency)),
        'reward/progress': mean(scored.map((s) => s.parts.progress)),
        program_tokens: mean(scored.map((s) => s.tokens)),
      };
    },

    sampleRecord: (problem, scored) => ({
      target: [],
      bits: 0,
      label: `${problem.functionName}: ${problem.docstring}`,
      detail: `${scored.passed.filter(Boolean).length}/${scored.passed.length} tests`,
    }),
  };
}

function difficulty(problem: FunctionProblem): number {
  return problem.difficulty ?? problem.tests.length + problem.hiddenTests.length;
}
