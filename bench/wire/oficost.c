/* oficost N: the cost of one libfabric tagged call through its ops table,
 * for bench/wire_overhead.sh.  An MPI program (so that libhopscope.so
 * records and the wire library writes as in a real run) that, after
 * MPI_Init, opens libfabric's shm provider (RDM, tagged), an address
 * vector holding its own endpoint, and times 30 passes of N pairs of
 * fi_tinject (0 bytes, to itself) + fi_trecv + fi_cq_read until the receive
 * completed, printing the fastest pass in ns per call (three calls per
 * pair, the CQ polls counted as one). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define CK(what, rc)                                                            \
    do {                                                                        \
        int r_ = (int)(rc);                                                     \
        if (r_) {                                                               \
            fprintf(stderr, "oficost: %s: %s\n", what, fi_strerror(-r_));       \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    struct fi_info *hints = fi_allocinfo(), *info;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_TAGGED;
    hints->fabric_attr->prov_name = strdup("shm");
    hints->domain_attr->av_type = FI_AV_TABLE;
    CK("fi_getinfo", fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info));
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    CK("fi_fabric", fi_fabric(info->fabric_attr, &fab, NULL));
    CK("fi_domain", fi_domain(fab, info, &dom, NULL));
    struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 1024 };
    CK("fi_cq_open", fi_cq_open(dom, &cqa, &cq, NULL));
    struct fi_av_attr ava = { .type = FI_AV_TABLE };
    CK("fi_av_open", fi_av_open(dom, &ava, &av, NULL));
    CK("fi_endpoint", fi_endpoint(dom, info, &ep, NULL));
    CK("bind cq", fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CK("bind av", fi_ep_bind(ep, &av->fid, 0));
    CK("fi_enable", fi_enable(ep));
    char name[256];
    size_t len = sizeof name;
    CK("fi_getname", fi_getname(&ep->fid, name, &len));
    fi_addr_t self;
    if (fi_av_insert(av, name, 1, &self, 0, NULL) != 1)
        CK("fi_av_insert", -FI_EINVAL);
    char sbuf[8], rbuf[8];
    struct fi_cq_tagged_entry e;
    double best = 1e300;
    int ctx;
    for (int pass = 0; pass < 30; pass++) {
        double t0 = now();
        for (long i = 0; i < n; i++) {
            ssize_t rc;
            while ((rc = fi_tinject(ep, sbuf, 0, self, 7)) == -FI_EAGAIN)
                fi_cq_read(cq, &e, 1);
            CK("fi_tinject", rc);
            while ((rc = fi_trecv(ep, rbuf, sizeof rbuf, NULL, self, 7, 0, &ctx)) == -FI_EAGAIN)
                fi_cq_read(cq, &e, 1);
            CK("fi_trecv", rc);
            while ((rc = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN)
                ;
            if (rc < 0)
                CK("fi_cq_read", rc);
        }
        double dt = (now() - t0) / (double)n / 3;
        if (dt < best)
            best = dt;
    }
    printf("%.2f\n", best);
    fi_close(&ep->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    MPI_Finalize();
    return 0;
}
