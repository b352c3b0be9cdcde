/// The self-priming bounded FIFO prefetch pump that runs loads on I/O threads.
package dev.penstock.pump;
