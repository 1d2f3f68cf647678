/**
 * Identity and same-dtype Cast without a copy on tfjs-backend-wasm.
 *
 * tfjs-wasm 4.22 copies the whole tensor for both, and tfjs's gradients call them all the time:
 * Multiply's gradient casts each operand to float32 (a no-op cast, so a copy), and clones pass
 * gradients through. In a training step of the reference policy that was ~320 copies, 26 ms of
 * Identity and 9 ms of Cast out of ~420 ms of kernels. Tensors are immutable and the backend
 * counts references per data id (its own Reshape shares data this way, as the cpu backend's
 * Identity does), so both can return the input's data with one more reference.
 */
import * as tf from '@tensorflow/tfjs-core';

interface RefCountingBackend {
  incRef(dataId: object): void;
}

let active = false;

/** Shares the input's data, or returns null for what the original kernel must do. */
function share(x: tf.TensorInfo, dtype: tf.DataType, backend: unknown): tf.TensorInfo | null {
  if (x.dtype === 'string' || dtype !== x.dtype) return null;
  (backend as RefCountingBackend).incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype };
}

/**
 * Replaces the wasm backend's Identity and Cast kernels (idempotent). Returns whether they are
 * replaced and, if not, why; nothing changes when the wasm backend is not registered.
 */
export function installWasmZeroCopy(): { active: boolean; reason: string } {
  if (active) return { active, reason: 'Identity and same-dtype Cast share data' };
  const identity = tf.getKernel('Identity', 'wasm');
  const cast = tf.getKernel('Cast', 'wasm');
  if (!identity || !cast) return { active: false, reason: 'the wasm backend is not registered' };
  tf.unregisterKernel('Identity', 'wasm');
  tf.registerKernel({
    ...identity,
    kernelFunc: (args) => share(args.inputs.x as tf.TensorInfo, (args.inputs.x as tf.TensorInfo).dtype, args.backend) ?? (identity.kernelFunc(args) as tf.TensorInfo),
  });
  tf.unregisterKernel('Cast', 'wasm');
  tf.registerKernel({
    ...cast,
    kernelFunc: (args) => share(args.inputs.x as tf.TensorInfo, (args.attrs as { dtype: tf.DataType }).dtype, args.backend) ?? (cast.kernelFunc(args) as tf.TensorInfo),
  });
  active = true;
  return { active, reason: 'Identity and same-dtype Cast share data' };
}
