! Fortran 90 ring (use mpi): the same pattern as ring_f77.f.
!   usage: ring_f90 ITERS NWORDS
program ring_f90
  use mpi
  implicit none
  integer :: ierr, rank, np, i, k, iters, nw, req
  integer :: stat(MPI_STATUS_SIZE)
  integer, allocatable :: sbuf(:), rbuf(:)
  integer(kind=8) :: s, tot
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, arg)
  read (arg, *) iters
  call get_command_argument(2, arg)
  read (arg, *) nw
  allocate(sbuf(nw), rbuf(nw))
  s = 0
  do i = 0, iters - 1
     do k = 1, nw
        sbuf(k) = rank * 1000 + i + k
     end do
     call MPI_Isend(sbuf, nw, MPI_INTEGER, mod(rank + 1, np), mod(i, 3), MPI_COMM_WORLD, req, ierr)
     call MPI_Recv(rbuf, nw, MPI_INTEGER, MPI_ANY_SOURCE, mod(i, 3), MPI_COMM_WORLD, stat, ierr)
     call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
     s = s + sum(int(rbuf, kind=8))
  end do
  call MPI_Allreduce(s, tot, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'ring_f90 sum', tot
  call MPI_Finalize(ierr)
end program ring_f90
