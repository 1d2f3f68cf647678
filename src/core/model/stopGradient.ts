import * as tf from '@tensorflow/tfjs-core';

/** Identity whose gradient is zero (tfjs has no stop_gradient op). */
export const stopGradient = tf.customGrad(((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const x = args[0] as tf.Tensor;
  return { value: x.clone(), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
}) as Parameters<typeof tf.customGrad>[0]) as <T extends tf.Tensor>(x: T) => T;
