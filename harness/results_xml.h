/* SPDX-License-Identifier: GPL-2.0 */
/* CUnit-format XML results file. */
#ifndef HARNESS_RESULTS_XML_H
#define HARNESS_RESULTS_XML_H

#define RESULTS_XML_NAME	"mshare-uml-Results.xml"

int results_xml_write(const char *dir, unsigned int final_log_bad);

#endif
