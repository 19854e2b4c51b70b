package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// ReadersWriters lets any number of readers in at once, or one writer
// alone. Readers share the room through a lightswitch; a writer takes the
// room itself. A steady stream of readers can keep a writer out forever.
type ReadersWriters struct {
	room    sem.Semaphore // one permit: held by a writer, or by the readers together
	readers *Lightswitch
}

// NewReadersWriters returns an empty room.
func NewReadersWriters(newSemaphore NewSemaphore) *ReadersWriters {
	return &ReadersWriters{room: newSemaphore(1, 1), readers: NewLightswitch(newSemaphore)}
}

// ReadLock enters as a reader.
func (rw *ReadersWriters) ReadLock(ctx context.Context) error { return rw.readers.Lock(ctx, rw.room) }

// ReadUnlock leaves as a reader.
func (rw *ReadersWriters) ReadUnlock(ctx context.Context) error {
	return rw.readers.Unlock(ctx, rw.room)
}

// WriteLock enters as the writer.
func (rw *ReadersWriters) WriteLock(ctx context.Context) error { return rw.room.Acquire(ctx, 1) }

// WriteUnlock leaves as the writer.
func (rw *ReadersWriters) WriteUnlock(context.Context) error {
	rw.room.Release(1)
	return nil
}

// WriterPriority is readers-writers where a waiting writer shuts the door
// on readers: once a writer waits, no reader that comes later gets in
// until every writer has gone. Readers may starve; writers do not.
//
// Two lightswitches work against each other. The writers' switch takes
// noReaders while any writer waits or writes, and a reader must pass
// through noReaders, so it waits for the writers to be gone. The readers'
// switch takes noWriters while any reader reads, and writers take it one
// at a time, so a writer waits only for the readers already inside.
type WriterPriority struct {
	noReaders sem.Semaphore // one permit: held while writers wait or write
	noWriters sem.Semaphore // one permit: held by the readers or one writer
	readers   *Lightswitch
	writers   *Lightswitch
}

// NewWriterPriority returns an empty room.
func NewWriterPriority(newSemaphore NewSemaphore) *WriterPriority {
	return &WriterPriority{
		noReaders: newSemaphore(1, 1),
		noWriters: newSemaphore(1, 1),
		readers:   NewLightswitch(newSemaphore),
		writers:   NewLightswitch(newSemaphore),
	}
}

// ReadLock enters as a reader, once no writer waits.
func (wp *WriterPriority) ReadLock(ctx context.Context) error {
	if err := wp.noReaders.Acquire(ctx, 1); err != nil {
		return err
	}
	defer wp.noReaders.Release(1) // held only to pass: the next reader, or a writer, goes on
	return wp.readers.Lock(ctx, wp.noWriters)
}

// ReadUnlock leaves as a reader.
func (wp *WriterPriority) ReadUnlock(ctx context.Context) error {
	return wp.readers.Unlock(ctx, wp.noWriters)
}

// WriteLock shuts the door on readers and waits for the room.
func (wp *WriterPriority) WriteLock(ctx context.Context) error {
	if err := wp.writers.Lock(ctx, wp.noReaders); err != nil {
		return err
	}
	return wp.noWriters.Acquire(ctx, 1)
}

// WriteUnlock leaves as the writer; the last writer opens the door.
func (wp *WriterPriority) WriteUnlock(ctx context.Context) error {
	wp.noWriters.Release(1)
	return wp.writers.Unlock(ctx, wp.noReaders)
}
