/// Chunked host→device transfer overlapped with compute: `TransferEngine`.
package dev.penstock.transfer;
