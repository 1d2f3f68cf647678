// Types only. src/core imports @tensorflow/tfjs-core (see docs/architecture.md), whose typings
// leave out the chained ops (tensor.add(...)) that the umbrella @tensorflow/tfjs declares. At run
// time those ops and the gradients are registered by the umbrella, which every entry point (the
// workers, cli/tfBackend.ts) and core's tests import.
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';
