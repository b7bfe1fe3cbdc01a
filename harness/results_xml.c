// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the results in CUnit's own XML format, the CUNIT_TEST_RUN_REPORT
 * that CUnit's Automated interface writes (so CUnit-Run.xsl and tools
 * that read it work).  The tests run under the Basic interface for its
 * console output, so the file is built here afterwards from the registry
 * and the failure list.  Inactive (unselected or skipped) suites and
 * tests are left out, as the Automated interface does.
 */
#include <stdio.h>
#include <CUnit/CUnit.h>

#include "results_file.h"
#include "results_xml.h"
#include "suite_registry.h"

static void put_element(FILE *f, int indent, const char *tag, const char *s)
{
	fprintf(f, "%*s<%s> ", indent, "", tag);
	xml_put_escaped(f, s);
	fprintf(f, " </%s>\n", tag);
}

static CU_pFailureRecord suite_failure(CU_pSuite suite, CU_FailureType type)
{
	CU_pFailureRecord f;

	for (f = CU_get_failure_list(); f; f = f->pNext)
		if (f->pSuite == suite && !f->pTest && f->type == type)
			return f;
	return NULL;
}

static void write_test_failure(FILE *f, CU_pTest test, CU_pFailureRecord rec)
{
	char line[16];

	snprintf(line, sizeof(line), "%u", rec->uiLineNumber);
	fprintf(f, "        <CUNIT_RUN_TEST_RECORD>\n"
		   "          <CUNIT_RUN_TEST_FAILURE>\n");
	put_element(f, 12, "TEST_NAME", test->pName);
	put_element(f, 12, "FILE_NAME", rec->strFileName);
	put_element(f, 12, "LINE_NUMBER", line);
	put_element(f, 12, "CONDITION", rec->strCondition);
	fprintf(f, "          </CUNIT_RUN_TEST_FAILURE>\n"
		   "        </CUNIT_RUN_TEST_RECORD>\n");
}

/* One record per failure (as CUnit does), or one success record. */
static void write_test(FILE *f, CU_pTest test)
{
	CU_pFailureRecord rec;
	bool failed = false;

	for (rec = CU_get_failure_list(); rec; rec = rec->pNext) {
		if (rec->pTest != test)
			continue;
		write_test_failure(f, test, rec);
		failed = true;
	}
	if (failed)
		return;
	fprintf(f, "        <CUNIT_RUN_TEST_RECORD>\n"
		   "          <CUNIT_RUN_TEST_SUCCESS>\n");
	put_element(f, 12, "TEST_NAME", test->pName);
	fprintf(f, "          </CUNIT_RUN_TEST_SUCCESS>\n"
		   "        </CUNIT_RUN_TEST_RECORD>\n");
}

static void write_suite_failure(FILE *f, const char *name, const char *why)
{
	fprintf(f, "    <CUNIT_RUN_SUITE>\n      <CUNIT_RUN_SUITE_FAILURE>\n");
	put_element(f, 8, "SUITE_NAME", name);
	put_element(f, 8, "FAILURE_REASON", why);
	fprintf(f, "      </CUNIT_RUN_SUITE_FAILURE>\n    </CUNIT_RUN_SUITE>\n");
}

static void write_suite(FILE *f, CU_pSuite suite)
{
	CU_pTest test;

	if (!suite->fActive)
		return;
	if (suite_failure(suite, CUF_SuiteInitFailed)) {
		write_suite_failure(f, suite->pName,
				    "Suite Initialization Failed");
		return;
	}
	fprintf(f, "    <CUNIT_RUN_SUITE>\n      <CUNIT_RUN_SUITE_SUCCESS>\n");
	put_element(f, 8, "SUITE_NAME", suite->pName);
	for (test = suite->pTest; test; test = test->pNext)
		if (test->fActive)
			write_test(f, test);
	fprintf(f, "      </CUNIT_RUN_SUITE_SUCCESS>\n    </CUNIT_RUN_SUITE>\n");
	if (suite_failure(suite, CUF_SuiteCleanupFailed))
		write_suite_failure(f, suite->pName, "Suite Cleanup Failed");
}

static void write_summary_record(FILE *f, const char *type,
				 unsigned int total, unsigned int run,
				 long succeeded, unsigned int failed,
				 long inactive)
{
	fprintf(f, "    <CUNIT_RUN_SUMMARY_RECORD>\n"
		   "      <TYPE> %s </TYPE>\n"
		   "      <TOTAL> %u </TOTAL>\n"
		   "      <RUN> %u </RUN>\n", type, total, run);
	if (succeeded < 0)
		fprintf(f, "      <SUCCEEDED> - NA - </SUCCEEDED>\n");
	else
		fprintf(f, "      <SUCCEEDED> %ld </SUCCEEDED>\n", succeeded);
	fprintf(f, "      <FAILED> %u </FAILED>\n", failed);
	if (inactive < 0)
		fprintf(f, "      <INACTIVE> - NA - </INACTIVE>\n");
	else
		fprintf(f, "      <INACTIVE> %ld </INACTIVE>\n", inactive);
	fprintf(f, "    </CUNIT_RUN_SUMMARY_RECORD>\n");
}

static void write_summary(FILE *f)
{
	CU_pTestRegistry reg = CU_get_registry();
	CU_pRunSummary sum = CU_get_run_summary();

	fprintf(f, "  <CUNIT_RUN_SUMMARY>\n");
	write_summary_record(f, "Suites", reg->uiNumberOfSuites,
			     sum->nSuitesRun, -1, sum->nSuitesFailed,
			     sum->nSuitesInactive);
	write_summary_record(f, "Test Cases", reg->uiNumberOfTests,
			     sum->nTestsRun,
			     sum->nTestsRun - sum->nTestsFailed,
			     sum->nTestsFailed, sum->nTestsInactive);
	write_summary_record(f, "Assertions", sum->nAsserts, sum->nAsserts,
			     sum->nAsserts - sum->nAssertsFailed,
			     sum->nAssertsFailed, -1);
	fprintf(f, "  </CUNIT_RUN_SUMMARY>\n");
}

static void write_report(FILE *f, const void *arg)
{
	const unsigned int *final_log_bad = arg;
	struct harness_suite *s;

	fprintf(f, "<?xml version=\"1.0\" ?>\n"
		   "<?xml-stylesheet type=\"text/xsl\" href=\"CUnit-Run.xsl\" ?>\n"
		   "<!DOCTYPE CUNIT_TEST_RUN_REPORT SYSTEM \"CUnit-Run.dtd\">\n"
		   "<CUNIT_TEST_RUN_REPORT>\n"
		   "  <CUNIT_HEADER/>\n"
		   "  <CUNIT_RESULT_LISTING>\n");
	for (s = harness_suites(); s; s = s->next)
		write_suite(f, s->cu_suite);
	/* Not a CUnit suite: how a splat after the last test shows up. */
	if (*final_log_bad)
		write_suite_failure(f, "kernel_log",
				    "bad kernel log records after the last test");
	fprintf(f, "  </CUNIT_RESULT_LISTING>\n");
	write_summary(f);
	fprintf(f, "  <CUNIT_FOOTER> File Generated By mshare-uml harness (CUnit %s) </CUNIT_FOOTER>\n"
		   "</CUNIT_TEST_RUN_REPORT>\n", CU_VERSION);
}

int results_xml_write(const char *dir, unsigned int final_log_bad)
{
	return results_file_write(dir, RESULTS_XML_NAME, "CUnit",
				  write_report, &final_log_bad);
}
