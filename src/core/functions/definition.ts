/**
 * The functions task as the lab looks it up (registry.ts): a JavaScript function from a
 * docstring and test cases (docs/functions.md). Its config section, defaults (the shipped
 * functions policy's shape and its recipe's RL settings), data (problems files), searches,
 * charts and warm start (the generator's problems) are here; the rest of the folder is how.
 */
import { Rng } from '../rng';
import type { TaskDefinition } from '../task';
import { functionsFields, type FunctionsConfig } from './config';
import { evaluateFunctions } from './evaluate';
import { searchFunctions, type Selection } from './search';
import { defaultGeneratorOptions, generateProblem, problemKey } from './generator';
import { FunctionGrammar } from './grammar';
import { HARNESS_SOURCE_LENGTH, REPORT_LENGTH, functionsPrelude } from './harness';
import { tokenText } from './language';
import { parseProblemsText, type FunctionProblem } from './problems';
import { encodeProblemPrompt, functionsPolicyConfig, functionsTask, promptBudget } from './task';

const lossCaption = 'The policy-gradient loss of each update: its sign and size follow the advantages, so watch its trend, not its level.';

export const functions: TaskDefinition<FunctionsConfig, FunctionProblem> = {
  name: 'functions',
  doc: 'a JavaScript function from a docstring and test cases (reward: tests passed, or the DQN seed\'s code_quality, sparse, curriculum)',
  fields: { section: { name: 'functions', shape: functionsFields } },
  // The shipped functions policy's shape (public/functions.prl) and its recipe's RL settings.
  defaults: {
    model: { dModel: 64, context: 192, maxProgramTokens: 40 },
    algorithm: { learningRate: 1e-4, klCoef: 0.05, groupSize: 4 },
    run: { dataPath: 'datasets/functions/train.jsonl', evalDataPath: 'datasets/functions/heldout.jsonl' },
  },
  sandboxed: true,
  shippedPolicy: { file: 'functions.prl', name: 'shipped functions policy' },
  prelude: functionsPrelude,
  reportLength: REPORT_LENGTH,
  harnessSourceLength: HARNESS_SOURCE_LENGTH,
  policyConfig: functionsPolicyConfig,
  createTask: (config) => functionsTask(config),
  grammarSpec: (config) => ({ task: 'functions', budget: config.model.maxProgramTokens }),
  grammarFromSpec: (spec) => new FunctionGrammar(Number(spec.budget)),
  tokenText,
  data: {
    kind: 'file',
    itemName: 'problems',
    format: 'text',
    sniff: (head) => head.includes('"function_name"'),
    parseText(text) {
      const { problems, errors } = parseProblemsText(text);
      return { items: problems, errors };
    },
    shipped: { train: 'datasets/functions/train.jsonl', heldout: 'datasets/functions/heldout.jsonl' },
    // What the generator's own check of held-out problems uses: the docstring and the shown tests, whatever the name.
    identity: problemKey,
    preview: (problem) => ({
      label: `${problem.functionName}(${problem.signature.params.join(', ')}) -> ${problem.signature.ret}`,
      detail: `${problem.docstring} (${problem.tests.length} shown, ${problem.hiddenTests.length} hidden tests)`,
    }),
  },
  searches: [
    { name: 'greedy', k: 1 },
    { name: 'best-of-8', k: 8 },
    // Up to k distinct programs (the first 32, then k where none of those passes its shown tests); the most probable passing program wins (search.ts).
    { name: 'search-64, likely', k: 64, options: { selection: 'likely' } },
    { name: 'search-256, likely', k: 256, options: { selection: 'likely' } },
  ],
  async evaluate({ policy, config, pool, onProgress }, problems, { limit, search }) {
    if (search.options?.selection) {
      const result = await searchFunctions({ policy, config, pool }, problems, { k: search.k, selection: search.options.selection as Selection, limit, onProgress });
      return {
        n: result.n,
        score: result.solved,
        metrics: { solved: result.solved, ...Object.fromEntries(result.solved_at.map(({ k, solved }) => [`solved@${k}`, solved])), mean_drawn: result.mean_drawn } as Record<string, number>,
        items: result.per_problem.map((row, index) => ({
          index,
          target: row.function_name,
          // The chosen program's tests, as greedy's rows say them: a solved-looking program that fails a hidden test shows where.
          output: row.shown_passed === undefined ? null : `shown ${row.shown_passed}/${row.shown_total}, hidden ${row.hidden_passed}/${row.hidden_total}`,
          program: row.program,
          correct: row.solved,
          detail: `${row.drawn} drawn, ${row.passing} passing the shown tests${row.suspect_test ? `; shown test ${row.suspect_test.index + 1} looks wrong: ${row.suspect_test.reason}` : ''}`,
          ...(row.tokens && row.solved ? { tokens: row.tokens } : {}),
        })),
        json: { ...result },
        summary: `solved ${result.solved.toFixed(3)} (${result.selection}, k ${result.k})  ${result.solved_at.map(({ k, solved }) => `@${k} ${solved.toFixed(2)}`).join(' ')}`,
      };
    }
    const result = await evaluateFunctions({ policy, config, pool }, problems, { limit, k: search.k, onProgress });
    return {
      n: result.n,
      score: result.solved,
      // With one program (greedy) pass@1 and the success rate are the solved share: said once.
      metrics: { solved: result.solved, ...(result.k > 1 ? { pass_at_1: result.pass_at_1, success_rate: result.success_rate } : {}) },
      items: result.per_problem.map((row, index) => ({
        index,
        target: `${row.function_name}: ${row.docstring}`,
        output: row.program ? `shown ${row.shown_passed}/${row.shown_total}, hidden ${row.hidden_passed}/${row.hidden_total}` : null,
        program: row.program,
        correct: row.solved,
        // The sandbox's outcome matters when the program did not run to the end (timeout, error); "ok" only says it ran.
        detail: `${row.outcome === 'ok' ? (row.solved ? 'passes every test' : 'ran, but fails a test') : row.outcome}; ${Math.round(100 * row.success_rate)}% of ${result.k} program${result.k > 1 ? 's' : ''} pass every test`,
      })),
      json: { ...result },
      summary: `solved ${result.solved.toFixed(3)}  pass@1 ${result.pass_at_1.toFixed(3)}  on ${result.n}`,
    };
  },
  evaluationDocs: {
    solved: 'the share of problems whose chosen program (chosen on the shown tests) passes every test, hidden ones too',
    pass_at_1: 'the share of problems the greedy program solves',
    success_rate: 'the share of all programs drawn that pass every test',
    mean_drawn: 'programs drawn per problem before the search stopped',
  },
  charts: [
    { name: 'avg_reward', title: 'average reward', caption: 'Mean reward of the programs sampled at each step; it should rise as the policy learns.' },
    { name: 'accuracy', title: 'solved (all tests pass)', caption: 'Share of sampled functions that pass every test of their problem.' },
    { name: 'tests_passed', title: 'share of tests passed', caption: 'Partial credit: the share of test cases the sampled functions pass.' },
    { name: 'reward/correctness', title: 'reward: correctness', caption: 'The part of the reward earned by passing tests.' },
    { name: 'reward/quality', title: 'reward: quality (code_quality)', optional: true, caption: 'The code_quality reward\'s syntax, structure, length and complexity terms.' },
    { name: 'reward/efficiency', title: 'reward: efficiency (code_quality)', optional: true, caption: 'The code_quality reward\'s length penalty and array-method bonus.' },
    { name: 'policy_loss', title: 'policy loss', caption: lossCaption },
    { name: 'program_tokens', title: 'program tokens', caption: 'Mean length of the sampled functions, in tokens.' },
  ],
  warmStart: {
    learningRate: (config) => config.algorithm.learningRate,
    batches(config, heldout) {
      const exclude = new Set((heldout as FunctionProblem[]).map(problemKey));
      const maxPrompt = promptBudget(config as FunctionsConfig);
      const options = { ...defaultGeneratorOptions, maxProgramTokens: config.model.maxProgramTokens };
      const rng = new Rng(config.run.seed + 1_000_003);
      const promptTests = (config as FunctionsConfig).functions.promptTests;
      const next = () => {
        for (;;) {
          const made = generateProblem(rng, options);
          if (made && !exclude.has(problemKey(made.problem))) return { prompt: encodeProblemPrompt(made.problem, promptTests, maxPrompt), tokens: made.program };
        }
      };
      return (size) => Array.from({ length: size }, next);
    },
  },
};
