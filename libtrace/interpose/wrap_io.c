/* libhopscope.so: MPI-IO calls that may communicate internally.  They are
 * not recorded (the trace describes the application's own messages), but
 * ROMIO implements them with PMPI collectives and point-to-point calls that
 * would otherwise land in hopscope's wrappers and be recorded as if the
 * application had made them.  Passing through with the re-entry guard set
 * keeps them out.  Time spent in them appears as time between MPI calls. */
#include "interpose.h"

#define W_GUARD(name, params, args)                                          \
    HS_WRAP(int, name, params, args)                                         \
    {                                                                        \
        hs__tls *t = &hs__t;                                                 \
        if (t->depth)                                                        \
            return HS_REAL(name) args;                                       \
        t->depth = 1;                                                        \
        int rc = HS_REAL(name) args;                                         \
        t->depth = 0;                                                        \
        return rc;                                                           \
    }

#define RW_PARAMS(CV) (MPI_File fh, CV void *buf, int count, MPI_Datatype dt, MPI_Status *st)
#define RW_ARGS (fh, buf, count, dt, st)
#define RWAT_PARAMS(CV) (MPI_File fh, MPI_Offset off, CV void *buf, int count, MPI_Datatype dt, \
                         MPI_Status *st)
#define RWAT_ARGS (fh, off, buf, count, dt, st)
#define IRW_PARAMS(CV) (MPI_File fh, CV void *buf, int count, MPI_Datatype dt, MPI_Request *rq)
#define IRW_ARGS (fh, buf, count, dt, rq)
#define IRWAT_PARAMS(CV) (MPI_File fh, MPI_Offset off, CV void *buf, int count, MPI_Datatype dt, \
                          MPI_Request *rq)
#define IRWAT_ARGS (fh, off, buf, count, dt, rq)
#define BEGIN_PARAMS(CV) (MPI_File fh, CV void *buf, int count, MPI_Datatype dt)
#define BEGIN_ARGS (fh, buf, count, dt)
#define BEGINAT_PARAMS(CV) (MPI_File fh, MPI_Offset off, CV void *buf, int count, MPI_Datatype dt)
#define BEGINAT_ARGS (fh, off, buf, count, dt)
#define END_PARAMS (MPI_File fh, void *buf, MPI_Status *st)
#define WEND_PARAMS (MPI_File fh, const void *buf, MPI_Status *st)
#define END_ARGS (fh, buf, st)

W_GUARD(File_open, (MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh),
        (comm, name, amode, info, fh))
W_GUARD(File_close, (MPI_File *fh), (fh))
W_GUARD(File_delete, (const char *name, MPI_Info info), (name, info))
W_GUARD(File_set_size, (MPI_File fh, MPI_Offset size), (fh, size))
W_GUARD(File_preallocate, (MPI_File fh, MPI_Offset size), (fh, size))
W_GUARD(File_set_info, (MPI_File fh, MPI_Info info), (fh, info))
W_GUARD(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                        const char *datarep, MPI_Info info), (fh, disp, etype, ftype, datarep, info))
W_GUARD(File_sync, (MPI_File fh), (fh))
W_GUARD(File_set_atomicity, (MPI_File fh, int flag), (fh, flag))
W_GUARD(File_read_all, RW_PARAMS(), RW_ARGS)
W_GUARD(File_write_all, RW_PARAMS(const), RW_ARGS)
W_GUARD(File_read_at_all, RWAT_PARAMS(), RWAT_ARGS)
W_GUARD(File_write_at_all, RWAT_PARAMS(const), RWAT_ARGS)
W_GUARD(File_iread_all, IRW_PARAMS(), IRW_ARGS)
W_GUARD(File_iwrite_all, IRW_PARAMS(const), IRW_ARGS)
W_GUARD(File_iread_at_all, IRWAT_PARAMS(), IRWAT_ARGS)
W_GUARD(File_iwrite_at_all, IRWAT_PARAMS(const), IRWAT_ARGS)
W_GUARD(File_read_all_begin, BEGIN_PARAMS(), BEGIN_ARGS)
W_GUARD(File_write_all_begin, BEGIN_PARAMS(const), BEGIN_ARGS)
W_GUARD(File_read_at_all_begin, BEGINAT_PARAMS(), BEGINAT_ARGS)
W_GUARD(File_write_at_all_begin, BEGINAT_PARAMS(const), BEGINAT_ARGS)
W_GUARD(File_read_ordered_begin, BEGIN_PARAMS(), BEGIN_ARGS)
W_GUARD(File_write_ordered_begin, BEGIN_PARAMS(const), BEGIN_ARGS)
W_GUARD(File_read_all_end, END_PARAMS, END_ARGS)
W_GUARD(File_write_all_end, WEND_PARAMS, END_ARGS)
W_GUARD(File_read_at_all_end, END_PARAMS, END_ARGS)
W_GUARD(File_write_at_all_end, WEND_PARAMS, END_ARGS)
W_GUARD(File_read_ordered_end, END_PARAMS, END_ARGS)
W_GUARD(File_write_ordered_end, WEND_PARAMS, END_ARGS)
W_GUARD(File_read_ordered, RW_PARAMS(), RW_ARGS)
W_GUARD(File_write_ordered, RW_PARAMS(const), RW_ARGS)
W_GUARD(File_read_shared, RW_PARAMS(), RW_ARGS)
W_GUARD(File_write_shared, RW_PARAMS(const), RW_ARGS)
W_GUARD(File_iread_shared, IRW_PARAMS(), IRW_ARGS)
W_GUARD(File_iwrite_shared, IRW_PARAMS(const), IRW_ARGS)
W_GUARD(File_seek_shared, (MPI_File fh, MPI_Offset off, int whence), (fh, off, whence))
W_GUARD(File_get_position_shared, (MPI_File fh, MPI_Offset *off), (fh, off))
