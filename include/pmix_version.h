/*
 * pmix_version.h - the PMIx version spmix implements, and its capabilities.
 *
 * spmix implements the PMIx v4 ABI of OpenPMIx 4.2.2, so consumers that test
 * these numbers take the same paths as with that release.  A PMIX_CAP_*
 * macro is defined only when the library has that capability: test for it
 * with #ifdef; its numeric value carries no meaning (values follow upstream
 * OpenPMIx so they never clash).
 */
#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

#define PMIX_VERSION_MAJOR   4L
#define PMIX_VERSION_MINOR   2L
#define PMIX_VERSION_RELEASE 2L
#define PMIX_NUMERIC_VERSION 0x00040202

/* Capabilities */
#define PMIX_CAP_BASE                 0
#define PMIX_CAP_GROUP_JOIN_COMPLETES 13  /* PMIx_Group_join returns when the group is built */
#define PMIX_CAP_DATA_DELETE          17  /* PMIX_DEL_* scopes remove keys */

/* Legacy aggregate kept for consumers that look for it. */
#define PMIX_CAPABILITIES (PMIX_CAP_BASE)

#endif /* PMIx_VERSION_H */
