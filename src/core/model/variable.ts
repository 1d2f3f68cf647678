/**
 * A tfjs variable made from a tensor that is then released. `tf.variable(initial)` shares the
 * initial tensor's data and leaves the tensor itself alive: made inline
 * (`tf.variable(tf.zeros(shape))`), that tensor leaks, and its bytes stay held after the
 * variable is disposed. Found by the leak soak: every optimizer made and disposed left one tensor
 * per moment buffer (twice the model's size).
 */
import * as tf from '@tensorflow/tfjs-core';

export function variableFrom(initial: tf.Tensor, trainable = true, name?: string): tf.Variable {
  const variable = tf.variable(initial, trainable, name);
  initial.dispose();
  return variable;
}
