! Fortran 2008 ring (use mpi_f08): the same pattern as ring_f77.f, plus an
! MPI_Sendrecv and an MPI_Bcast so that the mpi_f08 layer's other entry
! points are counted too.
!   usage: ring_f08 ITERS NWORDS
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, np, i, k, iters, nw
  type(MPI_Request) :: req
  type(MPI_Status) :: stat
  integer, allocatable :: sbuf(:), rbuf(:)
  integer(kind=8) :: s, tot
  integer :: b(4)
  character(len=32) :: arg
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
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
     call MPI_Isend(sbuf, nw, MPI_INTEGER, mod(rank + 1, np), mod(i, 3), MPI_COMM_WORLD, req)
     call MPI_Recv(rbuf, nw, MPI_INTEGER, MPI_ANY_SOURCE, mod(i, 3), MPI_COMM_WORLD, stat)
     call MPI_Wait(req, MPI_STATUS_IGNORE)
     s = s + sum(int(rbuf, kind=8))
  end do
  call MPI_Sendrecv(sbuf, nw, MPI_INTEGER, mod(rank + 1, np), 9, rbuf, nw, MPI_INTEGER, &
                    mod(rank + np - 1, np), 9, MPI_COMM_WORLD, stat)
  s = s + sum(int(rbuf, kind=8))
  b = rank
  call MPI_Bcast(b, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  s = s + b(1)
  call MPI_Allreduce(s, tot, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'ring_f08 sum', tot
  call MPI_Finalize()
end program ring_f08
