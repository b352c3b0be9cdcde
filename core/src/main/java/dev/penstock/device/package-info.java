/// Devices, streams and events with CUDA semantics; `CpuDevice` is the default device.
package dev.penstock.device;
